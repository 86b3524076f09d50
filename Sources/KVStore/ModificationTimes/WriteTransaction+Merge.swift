extension WriteTransaction {
    /// Merges another store's version of a record into this one, key by key: per key the later
    /// stamp wins (``StampedRecord/merged(with:policy:)``), and the record takes the winning
    /// values (a winning tombstone removes the key) and stamps — the remote's stamps, not now.
    /// A missing record is inserted; a `null` in the remote values means the key is absent (with
    /// a stamp: a tombstone). Merging is idempotent, commutative and associative: merging
    /// the same version again changes nothing; stores that merge each other's versions in any
    /// order end up with equal records and stamps.
    ///
    /// Values are written through ``update(_:from:keys:insertingIfAbsent:)-(_,[String:Value],_,_)``, so the changed
    /// keys are journaled and observed like local changes, and the kind's rules apply (stores
    /// converge when they apply the same rules: a value one store's validator rewrites keeps the
    /// remote's stamp there).
    ///
    /// The journal carries values, not stamps: a replica that applies this store's journal stamps
    /// the merged keys with this merge's commit (its time, this store's id), not with the remote's
    /// stamps, and a merge that only adopts newer stamps for equal values sends it nothing. Such
    /// a replica may then decide a later conflict on those keys differently from this store:
    /// exchange ``StampedRecord``s by merging with each peer rather than relaying merged records
    /// through journal replication.
    ///
    /// ```swift
    /// let remote = try replica.read { try $0.stampedRecord(ada) }!
    /// let changes = try store.write { try $0.merge(ada, from: remote) }   // what the remote changed here
    /// ```
    /// - Returns: the change of each key whose value this merge changed.
    /// - Throws: ``ModelError/Code/untrackedKind`` unless the kind is registered with
    ///   ``Kind/tracksModificationTimes``; ``ModelError/Code/invalidValue`` for a remote stamp whose
    ///   time is not finite (it would win over every other change, forever);
    ///   ``KeyValueCodingError/Code/invalidKeyPath`` for a remote key no key path can name;
    ///   ``StoreError/Code/replica`` on a replica (even when only stamps would change).
    public func merge(_ ref: RecordRef, from remote: StampedRecord, policy: MergePolicy = .lastWriterWins) throws -> [String: ValueChange] {
        guard try effectiveKind(named: ref.kind)?.tracksModificationTimes == true else {
            throw ModelError(
                code: .untrackedKind,
                message: "merging needs modification times: register kind '\(ref.kind)' with tracksModificationTimes", ref: ref)
        }
        // A merge adopting newer stamps for equal values journals nothing: refuse it on a replica here.
        try checkLocalWriteAllowed()
        for (key, stamp) in remote.stamps.sorted(by: { $0.key < $1.key }) {
            try Self.checkKey(key)
            if !stamp.time.timeIntervalSinceReferenceDate.isFinite {
                throw ModelError(code: .invalidValue, message: "the remote modification time is not a finite date", keyPath: key, ref: ref)
            }
        }
        var remote = remote
        if remote.values.values.contains(where: \.isNull) { remote.values = remote.values.filter { !$0.value.isNull } }
        let local = try stampedRecord(ref)
        let merged = (local ?? StampedRecord(values: [:], stamps: [:])).merged(with: remote, policy: policy)
        let changes: [String: ValueChange]
        if local == nil {
            changes = try insertReportingChanges(merged.values, as: ref)
        } else {
            changes = try update(ref, from: merged.values)
        }
        // The writes above stamped their keys with this commit's time: the merged stamps replace them.
        if local == nil || !changes.isEmpty || merged.stamps != local?.stamps {
            try saveModificationTimes(merged.stamps, of: ref)
        }
        return changes
    }
}
