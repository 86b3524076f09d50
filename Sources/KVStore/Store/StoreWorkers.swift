import Dispatch
import LMDB
import Synchronization

/// The store's own threads for the async `read` and `write` (`Store+Async.swift`): at most `width`
/// jobs run at once, each on one of `width` serial dispatch queues of the store's, in the order
/// they were submitted; the others wait in a FIFO.
///
/// Serial queues, not one concurrent queue: on Linux a concurrent queue shares the width-limited
/// thread pool that Swift concurrency runs on, so jobs blocked there — a write waiting for its
/// turn — would starve the caller's tasks. A serial queue gets a thread of its own (dispatch's
/// overcommit pool). A queue that finishes a job takes the next waiting one.
final class StoreWorkers: Sendable {
    private struct State {
        var waiting: [@Sendable () -> Void] = []
        /// The queues with no job, by index.
        var idle: [Int]
    }

    private let queues: [DispatchQueue]
    private let state: LockedState<State>

    init(label: String, width: Int) {
        queues = (0 ..< max(1, width)).map { DispatchQueue(label: "\(label).\($0)") }
        state = LockedState(State(idle: Array(queues.indices.reversed())))
    }

    /// Runs `job` on one of the workers' threads, now or once one is free.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let queue = state.withLock { state -> Int? in
            if let queue = state.idle.popLast() { return queue }
            state.waiting.append(job)
            return nil
        }
        if let queue { queues[queue].async { self.work(from: job, on: queue) } }
    }

    /// Runs `job`, then every job waiting, until none is left.
    private func work(from job: @escaping @Sendable () -> Void, on queue: Int) {
        var next: (@Sendable () -> Void)? = job
        while let job = next {
            job()
            next = state.withLock { state in
                if state.waiting.isEmpty {
                    state.idle.append(queue)
                    return nil
                }
                return state.waiting.removeFirst()
            }
        }
    }
}

/// The threads of one environment's async reads and writes (shared by every ``Store`` open on
/// it): the readers, and the pipeline of async writes (``AsyncCommitQueue``) — grouping, and not
/// grouping for stores opened with ``Store/Options/groupsCommits`` off.
final class StoreThreads: Sendable {
    let readers = StoreWorkers(label: "kvstore.reader", width: 8)
    let commits = AsyncCommitQueue()
    let ungroupedCommits = AsyncCommitQueue(grouping: false)

    private static let shared = EnvironmentShared<StoreThreads>()

    /// The threads of `environment`, made on first use.
    static func shared(for environment: Environment) -> StoreThreads {
        shared.object(for: environment) { StoreThreads() }
    }
}
