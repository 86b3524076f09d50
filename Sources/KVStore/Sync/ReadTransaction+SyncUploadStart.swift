/// Where a store's uploads start, and the journal entries truncation must keep for them.
extension ReadTransaction {
    /// The journal's last sequence when the store started syncing (meta `sync/start`); 0 when
    /// it does not sync or started before kvstore kept it. Entries up to it were journaled while
    /// their kinds did not sync (a kind starts syncing with no records): nothing of them is
    /// uploaded, so uploads start after it — even when the journal was truncated before it.
    package func syncUploadStart() throws -> UInt64 {
        try transaction.uint64(forKey: StoreLayout.MetaKey.syncStart, in: databases.meta) ?? 0
    }

    /// Refuses to truncate the journal before `sequence` when that drops entries of a store that
    /// syncs which the hub has not committed: they are the only copy of those changes, which
    /// would never reach the other stores. (`truncateJournal(before:force:)` with `force` drops them.)
    /// - Throws: ``JournalRetentionError/Code/truncationBlocked``.
    func checkTruncationKeepsUnuploaded(before sequence: UInt64) throws {
        guard try syncConfiguration() != nil else { return }
        let uploaded = max(try syncCursors()?.uploadedThrough ?? 0, try syncUploadStart())
        guard uploaded + 1 < sequence else { return }
        throw JournalRetentionError(
            .truncationBlocked,
            "truncating before sequence \(sequence) would drop changes the sync hub does not have yet: uploaded through \(uploaded) of \(try lastSequence()); run kvstore sync first, or force",
            path: store.path)
    }
}
