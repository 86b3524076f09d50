/// The journal's entries as an `AsyncSequence` that follows new commits — from other tasks,
/// threads and processes — until the task iterating it is cancelled, which ends the sequence.
///
/// ```swift
/// let task = Task {
///     for try await entry in store.journalUpdates(after: 0) {
///         print(entry.sequence, entry.change)
///     }
/// }
/// // … later
/// task.cancel()
/// ```
///
/// It polls as ``JournalFollower`` does, sleeping with `Task.sleep` between polls, and reads in short
/// read transactions. Made by ``Store/journalUpdates(after:options:)`` (an in-memory position) or
/// ``JournalConsumer/updates(options:)``, which commits the consumer's cursor through a batch when
/// the entry after the batch is asked for, and through the entries handed out when the next one
/// is asked for after the task was cancelled (at-least-once: entries handed out but not yet
/// followed by a request for the next are delivered again after a restart).
public struct JournalUpdates: AsyncSequence, Sendable {
    /// Each element is one journal entry, in sequence order.
    public typealias Element = JournalEntry

    let store: Store
    let start: UInt64?
    let consumer: JournalConsumer?
    let options: JournalFollowOptions

    /// An iterator that starts reading at the sequence's position.
    public func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self)
    }

    /// Iterates a ``JournalUpdates``.
    public struct Iterator: AsyncIteratorProtocol {
        private let sequence: JournalUpdates
        private var tail: JournalTail?
        private var backoff: PollBackoff
        private var buffer: [JournalEntry] = []
        private var next = 0
        /// The last sequence handed out and not yet committed to the consumer.
        private var uncommitted: UInt64?

        init(sequence: JournalUpdates) {
            self.sequence = sequence
            backoff = PollBackoff(sequence.options.pollInterval)
        }

        /// The next entry, waiting for one to commit; nil once the task is cancelled (also in the
        /// middle of a batch already read).
        /// - Throws: ``JournalRetentionError/Code/cursorExpired`` when the journal is truncated
        ///   past the position; a consumer's errors when committing its cursor.
        public mutating func next() async throws -> JournalEntry? {
            if tail == nil {
                let start = try sequence.start ?? sequence.consumer!.cursor()
                tail = JournalTail(
                    store: sequence.store, position: start, batchLimit: sequence.options.batchLimit,
                    consumer: sequence.consumer?.name)
            }
            while true {
                if Task.isCancelled {
                    try commitHandedOut()
                    return nil
                }
                if next < buffer.count {
                    defer { next += 1 }
                    if sequence.consumer != nil { uncommitted = buffer[next].sequence }
                    return buffer[next]
                }
                try commitHandedOut()
                if let batch = try tail!.poll(), !batch.isEmpty {
                    (buffer, next) = (batch, 0)
                    backoff.reset()
                    continue
                }
                do {
                    try await Task.sleep(for: backoff.next())
                } catch {
                    return nil
                }
            }
        }

        /// Commits the consumer's cursor through the entries handed out: asking for the next
        /// one means the previous ones were processed.
        private mutating func commitHandedOut() throws {
            if let consumer = sequence.consumer, let sequence = uncommitted {
                try consumer.commit(through: sequence)
                uncommitted = nil
            }
        }
    }
}

extension Store {
    /// The entries after sequence `cursor`, then every entry committed later, as an `AsyncSequence`
    /// that ends when its task is cancelled. See ``JournalUpdates``. As for
    /// ``JournalFollower/init(store:after:options:)``, 0 starts at sequence 1, and a cursor the
    /// journal was truncated past fails with ``JournalRetentionError/Code/cursorExpired``.
    public func journalUpdates(after cursor: UInt64, options: JournalFollowOptions = JournalFollowOptions()) -> JournalUpdates {
        JournalUpdates(store: self, start: cursor, consumer: nil, options: options)
    }
}

extension JournalConsumer {
    /// The entries after the consumer's stored cursor, then every entry committed later, as an
    /// `AsyncSequence` that commits the cursor as it goes. See ``JournalUpdates``.
    public func updates(options: JournalFollowOptions = JournalFollowOptions()) -> JournalUpdates {
        JournalUpdates(store: store, start: nil, consumer: self, options: options)
    }
}
