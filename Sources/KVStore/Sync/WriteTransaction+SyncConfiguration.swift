/// Choosing which kinds a store syncs.
extension WriteTransaction {
    /// Makes the store sync the kinds of `configuration`, or stop syncing (nil), from this
    /// transaction on: meta `sync/config`. From then on every change of a record of a kind that
    /// syncs keeps the record's sync state in the same transaction (``SyncRecordState``); a kind
    /// that stops syncing loses its state. The first configuration raises the store's format to
    /// ``StoreLayout/syncFormatVersion``: a kvstore that knows no sync refuses the store. Setting
    /// the configuration already stored changes nothing.
    ///
    /// ```swift
    /// try store.write { try $0.setSyncConfiguration(SyncConfiguration(kinds: ["note"])) }
    /// ```
    /// - Throws: ``SyncStateError/Code/existingRecords`` when a kind that starts syncing has records
    ///   (nothing changes): only changes journaled while a kind syncs are uploaded, so enable
    ///   sync before writing its records, or insert them into a new store that syncs the kind
    ///   (`kvstore dump OLD | kvstore load NEW`); ``StoreError/Code/replica`` on a replica.
    package func setSyncConfiguration(_ configuration: SyncConfiguration?) throws {
        let old = try kindCatalog().sync
        if old == configuration { return }
        try checkLocalWriteAllowed()
        let starting = try kinds().filter { configuration?.syncs($0.kind) == true && old?.syncs($0.kind) != true }
        if let first = starting.first {
            throw SyncStateError(.existingRecords, "kind '\(first.kind)' has \(first.count) record\(first.count == 1 ? "" : "s") already: enable sync for a kind before it has records (only changes journaled while it syncs are uploaded), or load its records into a new store that syncs it (kvstore dump OLD | kvstore load NEW)")
        }
        let meta = databases.meta
        if let configuration {
            try transaction.put(StoreLayout.MetaKey.syncConfig, configuration.encoded, in: meta)
            if old == nil { try transaction.put(StoreLayout.MetaKey.syncStart, StoreLayout.uint64(journalLastSequence()), in: meta) }
            try raiseFormat(to: StoreLayout.syncFormatVersion)
        } else {
            try transaction.delete(StoreLayout.MetaKey.syncConfig, in: meta)
            try transaction.delete(StoreLayout.MetaKey.syncStart, in: meta)
        }
        try replaceCatalogVersion()
        try dropSyncState { configuration?.syncs($0) != true }
    }

    /// Deletes the sync state of the records of every kind for which `drop` is true.
    private func dropSyncState(_ drop: (String) -> Bool) throws {
        guard let db = databases.sync else { return }
        try transaction.withCursor(on: db) { cursor in
            var entry = try cursor.first()
            while let (key, _) = entry {
                let kind = String(decoding: key.prefix { $0 != 0 }, as: UTF8.self)
                if drop(kind) {
                    let deleted = Array(key)
                    try cursor.deleteCurrent()
                    entry = try cursor.seek(atOrAfter: deleted)
                } else {
                    entry = try cursor.seek(atOrAfter: Array(kind.utf8) + [1])
                }
            }
        }
    }
}
