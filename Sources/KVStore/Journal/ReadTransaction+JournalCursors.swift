import LMDB

/// Reading the journal after a cursor, and the durable consumers' cursors.
///
/// A *cursor* is the last sequence a reader has processed; it reads on from `cursor + 1`. The
/// journal covers cursors from `firstSequence − 1` (or the last sequence, once truncation emptied
/// it) to the last sequence; an older cursor has *expired*: entries it has not seen are gone.
extension ReadTransaction {
    /// The oldest cursor the journal still covers: the sequence before its first entry, or the
    /// last sequence when it is empty (0 for a store that never journaled).
    public func oldestCoveredCursor() throws -> UInt64 {
        if let first = try firstSequence() { return first - 1 }
        return try lastSequence()
    }

    /// Journal entries after `cursor` (from `cursor + 1` on), at most `limit` of them.
    ///
    /// ```swift
    /// let new = try store.read { try $0.journalEntries(after: 41, limit: 100) }   // 42, 43, …
    /// ```
    /// - Throws: ``JournalRetentionError/Code/cursorExpired`` when the journal was truncated past
    ///   `cursor` (entries after it are gone).
    public func journalEntries(after cursor: UInt64, limit: Int? = nil) throws -> [JournalEntry] {
        try journalEntries(after: cursor, limit: limit, consumer: nil)
    }

    /// ``journalEntries(after:limit:)`` for the consumer `consumer` (named in the error message).
    func journalEntries(after cursor: UInt64, limit: Int?, consumer: String?) throws -> [JournalEntry] {
        try checkCovered(cursor, consumer: consumer)
        if cursor == .max { return [] }
        return try journalEntries(from: cursor + 1, limit: limit)
    }

    /// Checks the journal still covers `cursor` (read by the consumer `consumer`, named in the
    /// error message).
    /// - Throws: ``JournalRetentionError/Code/cursorExpired``.
    func checkCovered(_ cursor: UInt64, consumer: String?) throws {
        let oldest = try oldestCoveredCursor()
        if cursor < oldest {
            let who = consumer.map { "consumer '\($0)'" } ?? "a reader"
            let gone = cursor + 1 == oldest ? "entry \(oldest) is" : "entries \(cursor + 1) through \(oldest) are"
            throw JournalRetentionError(
                .cursorExpired,
                "cursor expired: \(who) has read through sequence \(cursor), but the journal was truncated past it: \(gone) gone",
                path: store.path, consumer: consumer)
        }
    }

    /// The cursor of the consumer `name`, or nil when no such consumer is registered.
    func consumerCursor(_ name: String) throws -> UInt64? {
        try transaction.uint64(forKey: StoreLayout.MetaKey.consumer(name), in: databases.meta)
    }

    /// The cursor of the consumer `name`.
    /// - Throws: ``JournalRetentionError/Code/unknownConsumer``.
    func registeredConsumerCursor(_ name: String) throws -> UInt64 {
        guard let cursor = try consumerCursor(name) else {
            throw JournalRetentionError(.unknownConsumer, "no consumer named '\(name)' is registered", path: store.path, consumer: name)
        }
        return cursor
    }

    /// Every registered consumer with its cursor and lag, in name order (bytewise UTF-8).
    public func consumers() throws -> [JournalConsumer.Status] {
        let last = try lastSequence()
        let oldest = try oldestCoveredCursor()
        let prefix = StoreLayout.MetaKey.consumerPrefix
        var result: [JournalConsumer.Status] = []
        try transaction.scan(databases.meta, prefix: prefix) { key, value in
            guard let cursor = StoreLayout.uint64(from: value) else {
                throw StoreError(.corrupt, "a consumer's cursor is not a UInt64", path: store.path)
            }
            result.append(JournalConsumer.Status(
                name: String(decoding: key.dropFirst(prefix.count), as: UTF8.self),
                cursor: cursor, lag: last > cursor ? last - cursor : 0, isExpired: cursor < oldest))
            return true
        }
        return result
    }

    /// Checks `cursor` can be a cursor: not before the oldest covered one, not past the last sequence.
    /// - Throws: ``JournalRetentionError/Code/cursorExpired`` or ``JournalRetentionError/Code/invalidCursor``.
    func checkCursor(_ cursor: UInt64, consumer name: String) throws {
        let last = try lastSequence()
        if cursor > last {
            throw JournalRetentionError(
                .invalidCursor, "consumer '\(name)' cannot move to sequence \(cursor): the journal's last sequence is \(last)",
                path: store.path, consumer: name)
        }
        let oldest = try oldestCoveredCursor()
        if cursor < oldest {
            throw JournalRetentionError(
                .cursorExpired,
                "cursor expired: consumer '\(name)' cannot start at sequence \(cursor): the journal was truncated and entries through \(oldest) are gone",
                path: store.path, consumer: name)
        }
    }
}
