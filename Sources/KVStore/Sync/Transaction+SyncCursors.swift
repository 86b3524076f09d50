/// Reading and storing a store's ``SyncCursors`` (meta `sync/cursors`).
extension ReadTransaction {
    /// The store's sync cursors; nil before the first sync stored them.
    /// - Throws: ``StoreError/Code/corrupt`` when they do not decode, ``StoreError/Code/newerFormat``
    ///   when a newer kvstore wrote them.
    package func syncCursors() throws -> SyncCursors? {
        let path = store.path
        return try transaction.withValue(forKey: StoreLayout.MetaKey.syncCursors, in: databases.meta) { bytes throws(StoreError) in
            try bytes.map { bytes throws(StoreError) in try SyncCursors(encoded: bytes, path: path) }
        }
    }

    /// Whether the store's clock gives the hub's time rather than this machine's: this machine's
    /// clock was ahead of the hub's by more than ``WriteTransaction/clockTolerance`` at the last
    /// sync (``SyncCursors/hubOffsetMilliseconds``), in a store that syncs. Its new stamps are
    /// then at this machine's time plus the measured offset.
    package func clockIsClamped() throws -> Bool {
        try clampingOffset() != nil
    }

    /// The hub offset the clock applies (see ``clockIsClamped()``), or nil.
    func clampingOffset() throws -> Int64? {
        guard try kindCatalog().hasSyncConfiguration, let offset = try syncCursors()?.hubOffsetMilliseconds else { return nil }
        return offset < -Int64(WriteTransaction.clockTolerance) ? offset : nil
    }
}

extension WriteTransaction {
    /// Stores the store's sync cursors (nil: removes them), in this transaction: the downloader
    /// calls it in the transaction that applies the batch the cursor moves past.
    /// - Throws: ``SyncStateError/Code/notSyncing`` when the store has no sync configuration,
    ///   ``SyncStateError/Code/cursorAhead`` when `uploadedThrough` is past the journal's last
    ///   sequence (the store was restored from a backup or copied: its journal is behind what
    ///   the hub holds), ``StoreError/Code/replica`` on a replica; nothing changes then.
    package func setSyncCursors(_ cursors: SyncCursors?) throws {
        try checkLocalWriteAllowed()
        guard try kindCatalog().hasSyncConfiguration else {
            throw SyncStateError(.notSyncing, "the store does not sync: configure the kinds it syncs before storing sync cursors")
        }
        guard let cursors else {
            try transaction.delete(StoreLayout.MetaKey.syncCursors, in: databases.meta)
            return
        }
        let last = try journalLastSequence()
        guard cursors.uploadedThrough <= last else {
            throw SyncStateError(.cursorAhead, "the upload cursor \(cursors.uploadedThrough) is past the journal's last sequence \(last): the store was restored from a backup or copied")
        }
        try transaction.put(StoreLayout.MetaKey.syncCursors, cursors.encoded, in: databases.meta)
        clockOffset = nil
    }
}
