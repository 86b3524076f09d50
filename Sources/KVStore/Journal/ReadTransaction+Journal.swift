/// Reading the journal.
extension ReadTransaction {
    /// The sequence of the newest journal entry (0 when nothing was ever journaled).
    public func lastSequence() throws -> UInt64 {
        try transaction.uint64(forKey: StoreLayout.MetaKey.lastSequence, in: databases.meta) ?? 0
    }

    /// The sequence of the oldest entry still in the journal, or nil when it is empty.
    public func firstSequence() throws -> UInt64? {
        try transaction.withCursor(on: databases.journal) { cursor in
            try cursor.first().flatMap { StoreLayout.sequence(fromKey: $0.key) }
        }
    }

    /// Calls `body` with each journal entry from sequence `from` on, in order, until it returns false.
    public func forEachJournalEntry(from sequence: UInt64 = 1, _ body: (JournalEntry) throws -> Bool) throws {
        try transaction.scan(databases.journal, from: StoreLayout.sequenceKey(sequence)) { key, value in
            guard let seq = StoreLayout.sequence(fromKey: key) else {
                throw StoreError(.corrupt, "a journal key is not an 8-byte sequence", path: store.path)
            }
            return try body(JournalCodec.decode(value, sequence: seq))
        }
    }

    /// Journal entries from sequence `from` on, at most `limit` of them.
    public func journalEntries(from sequence: UInt64 = 1, limit: Int? = nil) throws -> [JournalEntry] {
        var entries: [JournalEntry] = []
        if let limit, limit <= 0 { return entries }
        try forEachJournalEntry(from: sequence) { entry in
            entries.append(entry)
            return limit.map { entries.count < $0 } ?? true
        }
        return entries
    }
}
