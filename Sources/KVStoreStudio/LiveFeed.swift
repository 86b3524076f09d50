import Foundation
import KVStore
import Synchronization

/// The journal as it grows, for every open page: a ``JournalFollower`` on its own thread (it sees
/// the commits of any process) hands each batch of new entries to the subscribed event streams,
/// as one server-sent event, and counts commits per second for the health chart.
final class LiveFeed: Sendable {
    private struct State {
        var subscribers: [UUID: AsyncStream<String>.Continuation] = [:]
        var follower: JournalFollower?
        /// Commits seen per second (Unix time), the last few minutes.
        var commitsPerSecond: [Int64: Int] = [:]
        var stopped = false
        var failure: String?
    }

    private let store: Store
    private let state = Mutex(State())

    init(store: Store) {
        self.store = store
    }

    /// Starts following after the journal's current end.
    func start() throws {
        let last = try store.read { try $0.lastSequence() }
        let follower = JournalFollower(store: store, after: last)
        state.withLock { $0.follower = follower }
        let thread = Thread { [self] in
            do {
                try follower.run { batch in self.publish(batch) }
            } catch {
                state.withLock { $0.failure = "\(error)" }
                publish(failure: "\(error)")
            }
        }
        thread.name = "kvstore studio journal follower"
        thread.start()
    }

    /// Stops the follower and ends every stream.
    func stop() {
        let (follower, subscribers) = state.withLock { state in
            state.stopped = true
            defer { state.subscribers = [:] }
            return (state.follower, Array(state.subscribers.values))
        }
        follower?.stop()
        for subscriber in subscribers { subscriber.finish() }
    }

    /// A stream of server-sent events (`data: {...}\n\n`), from now until ``stop()`` or until the
    /// stream is dropped.
    func subscribe() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = UUID()
        let added = state.withLock { state in
            guard !state.stopped else { return false }
            state.subscribers[id] = continuation
            return true
        }
        if !added { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        // A first comment, so that the browser's EventSource reports the stream open at once.
        continuation.yield(": live\n\n")
        return stream
    }

    /// Commits per second over the last `seconds` seconds, oldest first, ending now.
    func commitRate(seconds: Int, now: Date = Date()) -> [(second: Int64, commits: Int)] {
        let end = Int64(now.timeIntervalSince1970.rounded(.down))
        return state.withLock { state in
            (end - Int64(seconds) + 1...end).map { ($0, state.commitsPerSecond[$0] ?? 0) }
        }
    }

    /// Why following stopped, when it failed.
    var failure: String? { state.withLock { $0.failure } }

    private func publish(_ batch: [JournalEntry]) {
        var commits: [UInt64: Int64] = [:]
        for entry in batch { commits[entry.commitID] = Int64(entry.timestamp.timeIntervalSince1970.rounded(.down)) }
        let event: Value = .dictionary([
            "entries": .array(batch.map(StudioJSON.entry)),
            "sentAt": .double(Date().timeIntervalSince1970 * 1000),
        ])
        let text = "data: \(TypedJSON.string(from: event))\n\n"
        let subscribers = state.withLock { state in
            for second in commits.values { state.commitsPerSecond[second, default: 0] += 1 }
            if let newest = state.commitsPerSecond.keys.max() {
                state.commitsPerSecond = state.commitsPerSecond.filter { $0.key > newest - 600 }
            }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(text) }
    }

    private func publish(failure: String) {
        let event: Value = .dictionary(["error": .string("following the journal stopped: \(failure)")])
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield("event: failure\ndata: \(TypedJSON.string(from: event))\n\n") }
    }
}
