/// A durable, named reader of the journal — typically in another process — whose *cursor* (the
/// last sequence it has processed) is stored in the store, so it resumes where it left off after a
/// restart, and holds back ``Store/truncateJournal(before:force:)`` until it has processed what
/// truncation would drop.
///
/// ```swift
/// let indexer = try store.registerConsumer(named: "indexer", startingAfter: 0)  // from the start
/// // … later, or in another process:
/// let consumer = try store.consumer(named: "indexer")
/// let batch = try consumer.entries(limit: 500)
/// for entry in batch { index(entry) }
/// if let last = batch.last { try consumer.commit(through: last.sequence) }
/// ```
///
/// Processing is at-least-once: entries are read after the stored cursor, and the cursor moves only
/// when the consumer commits it, so a crash between processing and committing redelivers the
/// batch. To follow new commits as they happen, use ``JournalFollower/init(consumer:options:)`` or
/// ``updates(options:)``. Use one process at a time per consumer name: a second one would commit
/// the same cursor.
public struct JournalConsumer: Sendable {
    /// A consumer as ``Store/consumers()`` lists it.
    public struct Status: Sendable, Hashable {
        /// The consumer's name.
        public let name: String
        /// The last sequence the consumer has processed.
        public let cursor: UInt64
        /// How many sequences it is behind: the journal's last sequence − ``cursor``.
        public let lag: UInt64
        /// Whether the journal was truncated past the cursor (reading fails with
        /// ``JournalRetentionError/Code/cursorExpired`` until the cursor is ``JournalConsumer/reset(to:)``).
        public let isExpired: Bool
    }

    /// The store whose journal this consumer reads.
    public let store: Store
    /// The consumer's name: the key of its cursor in the store.
    public let name: String

    init(store: Store, name: String) {
        self.store = store
        self.name = name
    }

    /// The last sequence the consumer has processed, as stored.
    /// - Throws: ``JournalRetentionError/Code/unknownConsumer`` when it was unregistered.
    public func cursor() throws -> UInt64 {
        try store.read { try $0.registeredConsumerCursor(name) }
    }

    /// The consumer's cursor, lag, and whether it expired.
    /// - Throws: ``JournalRetentionError/Code/unknownConsumer`` when it was unregistered.
    public func status() throws -> Status {
        let status = try store.read { txn in try txn.consumers().first { $0.name == name } }
        guard let status else {
            throw JournalRetentionError(.unknownConsumer, "no consumer named '\(name)' is registered", path: store.path, consumer: name)
        }
        return status
    }

    /// The entries after the stored cursor, oldest first, at most `limit` of them, read in one short
    /// read transaction. The cursor does not move: ``commit(through:)`` when they are processed.
    /// - Throws: ``JournalRetentionError/Code/cursorExpired`` when the journal was truncated past the
    ///   cursor; ``JournalRetentionError/Code/unknownConsumer``.
    public func entries(limit: Int? = nil) throws -> [JournalEntry] {
        try store.read { txn in
            try txn.journalEntries(after: txn.registeredConsumerCursor(name), limit: limit, consumer: name)
        }
    }

    /// Stores that the consumer has processed every entry through `sequence` (durably, with the
    /// store's durability). Committing the current cursor again changes nothing.
    /// - Throws: ``JournalRetentionError/Code/invalidCursor`` when `sequence` is before the stored
    ///   cursor (use ``reset(to:)`` to go back) or past the journal's last sequence;
    ///   ``JournalRetentionError/Code/cursorExpired`` when it is before what the journal still
    ///   covers; ``JournalRetentionError/Code/unknownConsumer``.
    public func commit(through sequence: UInt64) throws {
        try store.write { txn in
            let cursor = try txn.registeredConsumerCursor(name)
            if sequence == cursor { return }
            if sequence < cursor {
                throw JournalRetentionError(
                    .invalidCursor,
                    "consumer '\(name)' cannot commit sequence \(sequence): its cursor is already at \(cursor) (reset it to go back)",
                    path: store.path, consumer: name)
            }
            try txn.checkCursor(sequence, consumer: name)
            try txn.setConsumerCursor(sequence, name: name)
        }
    }

    /// Moves the cursor to `sequence`, backwards or forwards — to reprocess entries, or to skip past
    /// a truncation after the consumer rebuilt its state by other means.
    /// - Throws: ``JournalRetentionError/Code/cursorExpired`` when `sequence` is older than the
    ///   journal covers; ``JournalRetentionError/Code/invalidCursor`` past the last sequence;
    ///   ``JournalRetentionError/Code/unknownConsumer``.
    public func reset(to sequence: UInt64) throws {
        try store.write { txn in
            _ = try txn.registeredConsumerCursor(name)
            try txn.checkCursor(sequence, consumer: name)
            try txn.setConsumerCursor(sequence, name: name)
        }
    }

    /// Removes the consumer: it no longer holds back truncation.
    /// - Throws: ``JournalRetentionError/Code/unknownConsumer``.
    public func unregister() throws {
        try store.write { txn in
            _ = try txn.registeredConsumerCursor(name)
            try txn.transaction.delete(StoreLayout.MetaKey.consumer(name), in: txn.databases.meta)
        }
    }
}

extension WriteTransaction {
    func setConsumerCursor(_ cursor: UInt64, name: String) throws {
        try transaction.put(StoreLayout.MetaKey.consumer(name), StoreLayout.uint64(cursor), in: databases.meta)
    }
}

extension Store {
    /// Registers a durable consumer named `name` whose cursor starts at `sequence`: it will read
    /// the entries after it. nil (the default) starts at the journal's last sequence, so the
    /// consumer sees only what commits from now on; 0 starts at the beginning of the journal.
    ///
    /// ```swift
    /// let consumer = try store.registerConsumer(named: "mailer")      // new entries only
    /// ```
    /// - Throws: ``JournalRetentionError``: ``JournalRetentionError/Code/invalidConsumerName`` (empty,
    ///   longer than ``JournalConsumer/maxNameLength`` bytes, or holding whitespace or control
    ///   characters), ``JournalRetentionError/Code/consumerExists``,
    ///   ``JournalRetentionError/Code/cursorExpired`` (before what the journal still covers),
    ///   ``JournalRetentionError/Code/invalidCursor`` (past the last sequence).
    @discardableResult
    public func registerConsumer(named name: String, startingAfter sequence: UInt64? = nil) throws -> JournalConsumer {
        try JournalConsumer.validate(name: name, path: path)
        try write { txn in
            if let cursor = try txn.consumerCursor(name) {
                throw JournalRetentionError(
                    .consumerExists, "a consumer named '\(name)' is already registered (at sequence \(cursor))",
                    path: path, consumer: name)
            }
            let start = try sequence ?? txn.lastSequence()
            try txn.checkCursor(start, consumer: name)
            try txn.setConsumerCursor(start, name: name)
        }
        return JournalConsumer(store: self, name: name)
    }

    /// The registered consumer `name`.
    /// - Throws: ``JournalRetentionError/Code/unknownConsumer``, ``JournalRetentionError/Code/invalidConsumerName``.
    public func consumer(named name: String) throws -> JournalConsumer {
        try JournalConsumer.validate(name: name, path: path)
        _ = try read { try $0.registeredConsumerCursor(name) }
        return JournalConsumer(store: self, name: name)
    }

    /// Every registered consumer with its cursor, lag and expiry, in name order.
    ///
    /// ```swift
    /// for consumer in try store.consumers() { print(consumer.name, consumer.cursor, consumer.lag) }
    /// ```
    public func consumers() throws -> [JournalConsumer.Status] {
        try read { try $0.consumers() }
    }
}
