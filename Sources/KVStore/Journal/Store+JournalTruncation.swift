/// Journal retention: dropping old entries.
extension Store {
    /// Deletes the journal entries with a sequence before `sequence`, in one write transaction.
    /// - Returns: how many entries were deleted.
    ///
    /// ```swift
    /// try store.truncateJournal(before: 1_000)              // keeps 1000 and later
    /// try store.truncateJournal(before: 1_000, force: true) // even past lagging consumers
    /// ```
    ///
    /// Registered consumers hold truncation back: it refuses to drop an entry a consumer has not
    /// processed (one after its cursor) unless `force` is true; a consumer left behind that way gets
    /// ``JournalRetentionError/Code/cursorExpired`` when it next reads. Truncating is not itself
    /// journaled, and the store's last sequence stays, so sequences are never reused. A `sequence`
    /// at or before the journal's first entry deletes nothing.
    ///
    /// - Throws: ``JournalRetentionError``: ``JournalRetentionError/Code/invalidTruncationPoint``
    ///   when `sequence` is past the last sequence + 1; ``JournalRetentionError/Code/truncationBlocked``
    ///   naming the consumer (the one furthest behind) and its cursor, or — in a store that
    ///   syncs — naming the sync upload cursor when entries after it would go.
    @discardableResult
    public func truncateJournal(before sequence: UInt64, force: Bool = false) throws -> Int {
        try write { txn in
            let last = try txn.lastSequence()
            if sequence > last + 1 {
                throw JournalRetentionError(
                    .invalidTruncationPoint,
                    "cannot truncate the journal before sequence \(sequence): its last sequence is \(last) (at most \(last + 1) truncates everything)",
                    path: path)
            }
            if !force {
                try txn.checkTruncationKeepsUnuploaded(before: sequence)
                let blocking = try txn.consumers().filter { $0.cursor + 1 < sequence }
                if let behind = blocking.min(by: { $0.cursor < $1.cursor }) {
                    let others = blocking.count > 1 ? " (and \(blocking.count - 1) more)" : ""
                    throw JournalRetentionError(
                        .truncationBlocked,
                        "truncating before sequence \(sequence) would drop entries consumer '\(behind.name)'\(others) has not processed: its cursor is at \(behind.cursor); let it catch up, unregister it, or force",
                        path: path, consumer: behind.name)
                }
            }
            return try txn.deleteJournalEntries(before: sequence)
        }
    }
}

extension WriteTransaction {
    /// Deletes journal entries from the start of the journal up to (not including) `sequence`.
    /// Deleting the last entry saves the clock's state in meta first: that entry told it.
    func deleteJournalEntries(before sequence: UInt64) throws -> Int {
        if sequence > (try lastSequence()) { try saveClock() }
        return try transaction.withCursor(on: databases.journal) { cursor in
            var deleted = 0
            while let (key, _) = try cursor.first() {
                guard let current = StoreLayout.sequence(fromKey: key) else {
                    throw StoreError(.corrupt, "a journal key is not an 8-byte sequence", path: store.path)
                }
                if current >= sequence { break }
                try cursor.deleteCurrent()
                deleted += 1
            }
            return deleted
        }
    }
}
