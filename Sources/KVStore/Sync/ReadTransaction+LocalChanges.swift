/// Reading this store's own changes to upload to the sync hub, as ``RemoteChange`` values (what
/// the other stores apply with ``WriteTransaction/applyRemote(_:hubNow:)``).
extension ReadTransaction {
    /// The changes of the journal entries after sequence `cursor` (at most `limit` entries read)
    /// that other stores need: entries made here (no origin: an entry applied from elsewhere is
    /// not uploaded again), of kinds the store syncs, not derived.
    ///
    /// A change inside a top-level key (a key path, an array edit) travels as the key's whole
    /// value as of the entry. An entry a later stamp superseded — for its key, for the record's
    /// insertion or deletion — is left out: the later change carries what the other stores need,
    /// so the value as of the entry is the value the record holds now. A record's insertion
    /// carries the whole record as inserted, so that its content never depends on when it is
    /// read (a retried upload must match what the hub holds).
    ///
    /// ```swift
    /// let batch = try store.read { try $0.localChanges(after: uploadCursor, limit: 1000) }
    /// // upload batch.changes, then save batch.lastSequence as the upload cursor
    /// ```
    /// - Throws: ``JournalRetentionError`` when the journal was truncated past `cursor`.
    @_spi(Sync) public func localChanges(after cursor: UInt64, limit: Int? = nil) throws -> (changes: [RemoteChange], lastSequence: UInt64) {
        var changes: [RemoteChange] = []
        var last = cursor
        for entry in try journalEntries(after: cursor, limit: limit) {
            last = entry.sequence
            guard entry.origin == nil, !entry.isDerived, entry.change != .kindDeclared, try syncs(entry.ref.kind) else { continue }
            if let change = try localChange(of: entry) { changes.append(change) }
        }
        return (changes, last)
    }

    /// The change `entry` made, as the record's sync state holds it; nil when a later stamp
    /// superseded it.
    private func localChange(of entry: JournalEntry) throws -> RemoteChange? {
        let stamp = entry.syncStamp(localStore: store.id), ref = entry.ref
        let state = try syncState(of: ref)
        func change(_ kind: RemoteChange.Change, key: String?, value: Value?) -> RemoteChange {
            RemoteChange(origin: JournalOrigin(storeID: store.id, sequence: entry.sequence), stamp: stamp.time, ref: ref, key: key, change: kind, value: value)
        }
        switch try WriteTransaction.syncChange(of: entry) {
        case .deleted:
            return state.deleted == stamp ? change(.delete, key: nil, value: nil) : nil
        case .inserted(let keys):
            // The whole record as inserted, whatever later changes took of it (their stamps win
            // wherever they arrive): an upload retried after a lost acknowledgement must carry the
            // same content, or the hub takes the store for one restored from an older copy.
            guard state.created == stamp || keys.contains(where: { state.keys[$0]?.stamp == stamp }),
                  case .dictionary? = entry.newValue else { return nil }
            return change(.insert, key: nil, value: entry.newValue)
        case .key(let key, _):
            guard let keyState = state.keys[key], keyState.stamp == stamp else { return nil }
            guard keyState.isSet else { return change(.remove, key: key, value: nil) }
            guard let value = try record(ref)?[key] else { throw corruptSyncState(ref, key: key) }
            return change(.set, key: key, value: value)
        }
    }
}
