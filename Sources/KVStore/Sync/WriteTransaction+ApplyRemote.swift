import Foundation

/// Applying changes made in other stores (downloaded from the sync hub) by the per-key
/// last-writer-wins rule (``SyncRecordState``).
extension WriteTransaction {
    /// How far ahead of the hub's clock a remote stamp's wall time may be for the store's clock to
    /// advance to it: 60 s, in milliseconds.
    @_spi(Sync) public static let clockTolerance: UInt64 = 60_000

    /// Applies `changes`, made in other stores, by the per-key last-writer-wins rule.
    ///
    /// Each change updates its record's sync state (a key's stamp, the record's created or
    /// deleted stamp: max-registers), and the record is then written to match the state — a key is
    /// present iff its last change is a set stamped after the record's deletion, with the value of
    /// that set; the record exists iff it was created after its deletion or some key is present —
    /// through the normal write path: hooks, validators, indexes, observers, and the journal, whose
    /// entries carry the change's origin (so they are never uploaded again) and its stamp; what a
    /// hook writes to another record meanwhile is this store's own change (``asLocalChange(_:)``). A change
    /// that changes no state (already applied, or superseded by a later stamp) does nothing and
    /// journals nothing: applying changes in any order, any number of times, leaves every store
    /// with the same records.
    ///
    /// The store's clock advances to each change's stamp, unless its wall time is more than
    /// ``clockTolerance`` ahead of `hubNow` (a clock far ahead is not trusted): such a change is
    /// still applied by the rule — every store must decide alike — and listed in the report.
    ///
    /// ```swift
    /// let report = try store.write { try $0.applyRemote(downloaded, hubNow: hubClock) }
    /// ```
    /// - Parameter hubNow: the hub's time now; nil: this machine's time plus the hub offset
    ///   measured at the last sync (``SyncCursors/hubOffsetMilliseconds``), if any.
    /// - Throws: ``SyncStateError`` with code ``SyncStateError/Code/kindNotSynced`` for a change to a kind
    ///   the store does not sync, or ``SyncStateError/Code/refused`` for a malformed change or one the
    ///   kind's rules refuse (a closed kind's undeclared key, a value of another type than declared,
    ///   a validator's refusal, a unique index's duplicate, a hook that stores under another key
    ///   than the change's), naming the change's origin store and
    ///   sequence, record and key. Nothing of the batch is applied then: the refusal comes before
    ///   any write, or else the transaction can no longer commit (the caller's write throws it,
    ///   even if the caller caught it), so the caller's write transaction aborts.
    @_spi(Sync) public func applyRemote(_ changes: [RemoteChange], hubNow: Date? = nil) throws -> RemoteApplyReport {
        let changes = try changes.map(checkedRemoteChange)
        let limit = try (hubNow.map(HybridTime.milliseconds) ?? estimatedHubMilliseconds()) + Self.clockTolerance
        var report = RemoteApplyReport()
        _ = try startClock()
        for change in changes {
            if change.stamp.wall > limit {
                report.aheadOfClock.append(change)
            } else {
                try adoptClock(change.stamp)
            }
            do {
                if try applyRemote(change) { report.applied += 1 } else { report.superseded += 1 }
            } catch {
                // Reading a later change's state can fail (damage) after earlier changes of the
                // batch were written: the half-applied batch must not commit either.
                if report.applied > 0 { unjournaled = unjournaled ?? error }
                throw error
            }
        }
        return report
    }

    /// `change` with its keys in NFC (as the store keeps them) and an inserted record's null
    /// values left out; refused when malformed or of a kind the store does not sync.
    private func checkedRemoteChange(_ change: RemoteChange) throws -> RemoteChange {
        guard try syncs(change.ref.kind) else {
            throw SyncStateError.refused(change, "this store does not sync kind '\(change.ref.kind)'", code: .kindNotSynced)
        }
        var change = change
        change.key = change.key.map(UTF8Text.nfc)
        let problem: String? = switch change.change {
        case .set where change.value == nil || change.value?.isNull == true: "a set without a value"
        case .set, .remove: change.key == nil ? "no key" : nil
        case .insert: change.value?.dictionaryValue == nil ? "the inserted record is not a dictionary" : nil
        case .delete: change.value != nil ? "a deletion with a value" : nil
        }
        if let problem { throw SyncStateError.refused(change, problem) }
        if (change.change == .insert || change.change == .delete) && change.key != nil {
            throw SyncStateError.refused(change, "a record's \(change.change == .insert ? "insertion" : "deletion") with a key")
        }
        if let key = change.key {
            do { try Self.checkKey(key) } catch { throw SyncStateError.refused(change, error.message) }
        }
        if case .dictionary(let values)? = change.value, change.change == .insert {
            // A record holds no null at its top level: such a key is not inserted (nor stamped).
            let kept = values.filter { !$0.value.isNull }.map { (UTF8Text.nfc($0.key), $0.value) }
            change.value = .dictionary(Dictionary(kept, uniquingKeysWith: { $1 }))
        }
        return change
    }

    /// Applies one checked change.
    /// - Returns: whether it changed the record's sync state.
    private func applyRemote(_ change: RemoteChange) throws -> Bool {
        let ref = change.ref, stamp = change.syncStamp
        let old = try syncState(of: ref)
        var new = old
        guard new.apply(change.stateChange, stamp: stamp) else { return false }
        (origin, appliedStamp, applyingRemote) = (change.origin, change.stamp, ref)
        modificationTime = Date(timeIntervalSince1970: Double(change.stamp.wall) / 1000)
        defer { (origin, appliedStamp, applyingRemote, modificationTime) = (nil, nil, nil, nil) }
        do {
            try write(ref, toMatch: new, changedBy: change)
            try saveSyncState(new, was: old, of: ref)
        } catch let error as StoreError {
            unjournaled = unjournaled ?? error
            throw error
        } catch {
            let refused = (error as? SyncStateError) ?? SyncStateError.refused(change, "\(error)")
            unjournaled = unjournaled ?? refused
            throw refused
        }
        return true
    }

    /// Writes the record `ref` so that it holds what `state` says: the present keys, with the
    /// value of `change` where its stamp won the key, else the value the record holds.
    private func write(_ ref: RecordRef, toMatch state: SyncRecordState, changedBy change: RemoteChange) throws {
        let current = try record(ref)
        guard state.exists else {
            if current != nil { try delete(ref) }
            return
        }
        var values: [String: Value] = [:]
        for (key, keyStamp) in state.keys where state.isPresent(key) {
            let value = keyStamp.stamp == change.syncStamp ? change.value(forKey: key) : current?[key]
            guard let value else { throw corruptSyncState(ref, key: key) }
            values[key] = value
        }
        if let current {
            for key in Set(current.keys).union(values.keys).sorted(by: UTF8Text.precedes) where current[key] != values[key] {
                if let value = values[key] {
                    try setValue(value, forKey: key, of: ref)
                } else {
                    try removeValue(forKey: key, of: ref)
                }
            }
        } else {
            try insert(values, as: ref)
        }
        // A hook may store under another key: the record would then differ from the state, and
        // from the other stores' records. (A validator may rewrite a value: every store does alike.)
        let written = try record(ref).map { Set($0.keys) }
        if written != Set(values.keys) {
            func list(_ keys: Set<String>?) -> String { keys.map { $0.sorted(by: UTF8Text.precedes).joined(separator: ", ") } ?? "no record" }
            throw SyncStateError.refused(change, "the kind's hooks left \(ref) with keys \(list(written)) where the change leaves \(list(Set(values.keys)))")
        }
    }
}

extension WriteTransaction {
    /// Runs `body`, which journals a change a kind's hook made to another record while a remote
    /// change is applied, as a change of this store's own: no origin, stamped by this store's
    /// clock, its modification time the commit's, its sync state kept — and so uploaded, or the
    /// other stores would never see it.
    func asLocalChange(_ body: () throws -> Void) throws {
        let remote = (origin, appliedStamp, applyingRemote, modificationTime)
        (origin, appliedStamp, applyingRemote, modificationTime) = (nil, nil, nil, nil)
        defer { (origin, appliedStamp, applyingRemote, modificationTime) = remote }
        try body()
    }
}
