import LMDB
import Synchronization

/// What a ``KindChangeSequence`` iterates over: its position in the journal, and what wakes it —
/// an in-process kind observer and the store's file watch (``CommitWatcher``).
final class KindChangeFeed: Sendable {
    private let store: Store
    private let kind: String
    private let keyPaths: [String]
    private let options: JournalFollowOptions
    private let tail: LockedState<JournalTail>
    private let wakeup: CommitWakeup
    private let token: ObservationToken
    private let watcher: CommitWatcher
    private let subscription: Int?
    private let closed = Atomic<Bool>(false)

    private init(
        _ sequence: KindChangeSequence, start: UInt64, wakeup: CommitWakeup, token: ObservationToken,
        watcher: CommitWatcher, subscription: Int?
    ) {
        store = sequence.store
        kind = sequence.kind
        keyPaths = sequence.keyPaths
        options = sequence.options
        tail = LockedState(JournalTail(store: store, position: start, batchLimit: options.batchLimit, consumer: nil))
        self.wakeup = wakeup
        self.token = token
        self.watcher = watcher
        self.subscription = subscription
    }

    /// Starts observing, from the journal's end.
    static func start(_ sequence: KindChangeSequence) async throws -> KindChangeFeed {
        let (store, kind) = (sequence.store, sequence.kind)
        try RecordRef.validate(kind: kind)
        for keyPath in sequence.keyPaths { _ = try KeyValuePath(keyPath) }
        // Woken before the start is read: no commit after it goes unnoticed.
        let wakeup = CommitWakeup()
        let watcher = CommitWatcher.shared(for: store)
        let subscription = watcher.subscribe { wakeup.wake() }
        do {
            // `begin()` first: once it returns, a cancellation no longer drops the result (the
            // observer's token), which the caller then owns and closes.
            let (token, start) = try await store.onStoreThread(store.threads.readers) { begin in
                try begin()
                let token = try store.observeKind(kind) { _ in wakeup.wake() }
                return (token, try store.read { try $0.lastSequence() })
            }
            return KindChangeFeed(
                sequence, start: start, wakeup: wakeup, token: token, watcher: watcher, subscription: subscription)
        } catch {
            if let subscription { watcher.unsubscribe(subscription) }
            throw error
        }
    }

    /// The changes of the commits not delivered yet, waiting for one when there are none; nil once
    /// the task is cancelled.
    func next() async throws -> KindChanges? {
        var backoff = PollBackoff(options.pollInterval, watched: subscription != nil)
        while !Task.isCancelled {
            let read: Bool
            let changes: KindChanges?
            do {
                (read, changes) = try await store.onStoreThread(store.threads.readers) { [self] begin in
                    try begin()  // a poll consumes entries: its result must reach this task
                    return try poll()
                }
            } catch is CancellationError {
                return nil
            }
            if let changes { return changes }
            if read {
                backoff.reset()  // a commit of other kinds: look again before waiting
            } else if await wakeup.waitAsync(timeout: backoff.next()) {
                backoff.reset()
            }
        }
        return nil
    }

    /// Reads the entries committed since the last poll.
    /// - Returns: whether it read any, and their changes to the kind, if any.
    private func poll() throws -> (read: Bool, changes: KindChanges?) {
        try tail.withLock { tail in
            guard let changes = try tail.poll({ txn, cursor, limit in
                let entries = try txn.journalEntries(after: cursor, limit: limit, consumer: nil)
                return (try self.changes(in: entries, txn), entries.count, entries.last?.sequence)
            }) else { return (false, nil) }
            return (true, changes)
        }
    }

    /// The net changes `entries` made to the kind, with the carried values; nil when none.
    private func changes(in entries: [JournalEntry], _ txn: ReadTransaction) throws -> KindChanges? {
        let mine = entries.filter { $0.ref.kind == kind && $0.change != .kindDeclared }
        guard let last = mine.last else { return nil }
        var changes = KindChanges(kind: kind, commitID: last.commitID, entries: mine)
        guard !changes.isEmpty else { return nil }
        guard !keyPaths.isEmpty else { return changes }
        for id in changes.inserted.union(changes.modified) {
            let ref = try RecordRef(kind: kind, id: id)
            changes.values[id] = carried { try txn.value(forKeyPath: $0, of: ref) }
        }
        for entry in mine where entry.change == .recordDeleted && changes.deleted.contains(entry.ref.id) {
            changes.values[entry.ref.id] = carried { try value(at: $0, in: entry.oldValue, txn) }
        }
        return changes
    }

    /// The carried key paths' values, read by `value` (a key path that cannot be read has none).
    private func carried(_ value: (String) throws -> Value?) -> [String: Value] {
        var values: [String: Value] = [:]
        for keyPath in keyPaths {
            if let found = try? value(keyPath) { values[keyPath] = found }
        }
        return values
    }

    /// The value at `keyPath` in a deleted record's old values: through its dictionaries, and
    /// through a reference into the record it names (as of `txn`).
    private func value(at keyPath: String, in record: Value?, _ txn: ReadTransaction) throws -> Value? {
        var current = record
        var keys = keyPath.split(separator: ".", omittingEmptySubsequences: false)[...]
        while let key = keys.first {
            switch current {
            case .dictionary(let dictionary):
                current = dictionary[String(key)]
                keys = keys.dropFirst()
            case .reference(let ref):
                return try txn.value(forKeyPath: keys.joined(separator: "."), of: ref)
            default:
                return nil
            }
        }
        return current
    }

    /// Stops observing; idempotent.
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        token.cancel()
        if let subscription { watcher.unsubscribe(subscription) }
    }

    deinit { close() }
}
