/// Keeping the last-writer-wins state of records of kinds that sync (``SyncRecordState``), in
/// the write transaction of each change: ``journal(_:ref:keyPath:old:new:indexes:isDerived:encodedNew:)``,
/// which every write path goes through, reads the record's state before stamping the entry and
/// updates it after.
extension WriteTransaction {
    /// The state of the record `change` touches, when it is a change sync keeps (a record's,
    /// not derived) of a kind the store syncs; nil otherwise, and while applying remote changes
    /// (``applyRemote(_:hubNow:)`` keeps the state itself). For a store that does not sync, a
    /// look at the kind catalog this transaction already read: no LMDB operation.
    func syncStateBeforeJournaling(_ change: ChangeKind, ref: RecordRef, isDerived: Bool) throws -> SyncRecordState? {
        guard !isDerived, change != .kindDeclared, applyingRemote == nil else { return nil }
        let catalog = try kindCatalog()
        guard catalog.hasSyncConfiguration, let configuration = try catalog.sync, configuration.syncs(ref.kind) else { return nil }
        return try syncState(of: ref)
    }

    /// Updates the state `old` of `entry`'s record with the change the entry made, stamped `stamp`.
    func keepSyncState(_ old: SyncRecordState, for entry: JournalEntry, stamp: SyncStamp) throws {
        var new = old
        new.apply(try Self.syncChange(of: entry), stamp: stamp)
        if new != old { try saveSyncState(new, was: old, of: entry.ref) }
    }

    /// What `entry` changes in its record's sync state: a whole key (the top-level key of its key
    /// path: set, or removed when the entry removes that key itself), the record's insertion (with
    /// its keys) or deletion.
    static func syncChange(of entry: JournalEntry) throws -> SyncRecordState.Change {
        switch entry.change {
        case .recordInserted:
            return .inserted(keys: entry.newValue?.dictionaryValue.map { Array($0.keys) } ?? [])
        case .recordDeleted:
            return .deleted
        case .setting, .insertion, .removal, .replacement, .kindDeclared:
            let keyPath = entry.keyPath ?? ""
            let top = keyPath.firstIndex(of: ".").map { String(keyPath[..<$0]) } ?? keyPath
            return .key(top, isSet: !(entry.change == .setting && top == keyPath && entry.newValue == nil))
        }
    }
}

extension ReadTransaction {
    /// Whether the store syncs records of `kind`.
    func syncs(_ kind: String) throws -> Bool {
        try kindCatalog().sync?.syncs(kind) ?? false
    }
}
