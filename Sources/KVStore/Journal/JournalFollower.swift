import Foundation
import Synchronization

/// Follows the journal as other threads and **other processes** commit: ``run(_:)`` blocks, calling
/// its closure with each batch of new entries in sequence order, until ``stop()`` is called (from
/// any thread, or from the closure) or the closure throws.
///
/// ```swift
/// let follower = JournalFollower(store: store, after: try store.read { try $0.lastSequence() })
/// let thread = Thread {
///     try? follower.run { batch in
///         for entry in batch { print(entry.sequence, entry.ref, entry.keyPath ?? "-") }
///     }
/// }
/// thread.start()
/// // … later
/// follower.stop()
/// ```
///
/// LMDB has no change notification. On Linux the follower sleeps until the store's `data.mdb`
/// changes (an `inotify` watch: LMDB writes the file at every commit, in this process or another,
/// whatever the ``Durability``), then checks LMDB's last transaction id — a read of the
/// environment's meta page, no transaction — and opens a short read transaction only when it
/// changed. After a wake-up or new entries it checks again after the shortest poll interval,
/// doubling up to one second while idle (a safety net: an idle follower wakes about once a
/// second). Where the file cannot be watched it polls every 1 to 5 ms instead (see
/// ``JournalFollowOptions``). Following a ``JournalConsumer``
/// starts at its stored cursor and commits the cursor after each batch the closure handled
/// without throwing (at-least-once: a crash inside the closure redelivers that batch).
public final class JournalFollower: Sendable {
    private let store: Store
    private let start: UInt64?
    private let consumer: JournalConsumer?
    private let options: JournalFollowOptions
    private let stopped = Atomic<Bool>(false)
    private let wakeup = CommitWakeup()
    /// How many times ``run(_:)`` looked for new entries (tests check that an idle one rarely does).
    let polls = Atomic<Int>(0)

    /// A follower that delivers the entries after sequence `cursor`, then every entry committed
    /// later. Its position lives only in memory. 0 starts at sequence 1; once the journal was
    /// truncated, ``run(_:)`` fails with ``JournalRetentionError/Code/cursorExpired`` for a cursor
    /// before the entries it still holds (start at ``ReadTransaction/oldestCoveredCursor()`` to
    /// follow whatever is left).
    public init(store: Store, after cursor: UInt64, options: JournalFollowOptions = JournalFollowOptions()) {
        self.store = store
        self.start = cursor
        self.consumer = nil
        self.options = options
    }

    /// A follower of a durable consumer: it starts after the consumer's stored cursor and commits
    /// the cursor after each batch.
    public init(consumer: JournalConsumer, options: JournalFollowOptions = JournalFollowOptions()) {
        self.store = consumer.store
        self.start = nil
        self.consumer = consumer
        self.options = options
    }

    /// Delivers batches of new entries to `body` until ``stop()`` — already pending entries first,
    /// then each new commit's as it is seen. Returns once stopped; a stopped follower stays stopped.
    /// Run it on one thread at a time.
    ///
    /// - Throws: what `body` throws; ``JournalRetentionError/Code/cursorExpired`` when the journal
    ///   is truncated past the follower's position; a consumer's errors when committing its cursor;
    ///   ``StoreError/Code/filesReplaced`` when the store's `lock.mdb` or `data.mdb` was removed or
    ///   replaced (the follower would not see another commit).
    public func run(_ body: ([JournalEntry]) throws -> Void) throws {
        var tail = JournalTail(
            store: store, position: try start ?? consumer!.cursor(), batchLimit: options.batchLimit,
            consumer: consumer?.name)
        let watcher = CommitWatcher.shared(for: store)
        let subscription = watcher.subscribe { [wakeup] in wakeup.wake() }
        defer { if let subscription { watcher.unsubscribe(subscription) } }
        var backoff = PollBackoff(options.pollInterval, watched: subscription != nil)
        while !isStopped {
            polls.add(1, ordering: .relaxed)
            if let batch = try tail.poll(), let last = batch.last {
                try body(batch)
                try consumer?.commit(through: last.sequence)
                backoff.reset()
            } else if wakeup.wait(timeout: backoff.next()) {
                backoff.reset()
            }
        }
    }

    /// Ends ``run(_:)`` after the batch it is delivering (at once when idle).
    public func stop() {
        stopped.store(true, ordering: .releasing)
        wakeup.wake()
    }

    /// Whether ``stop()`` was called.
    public var isStopped: Bool { stopped.load(ordering: .acquiring) }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) * 1e-18
    }
}
