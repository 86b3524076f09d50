import Foundation
import KVStore

/// Runs `body(thread)` on `threads` threads at once and waits for all of them; rethrows the first
/// error any thread threw. The writers of the concurrent-commit scenarios.
func onThreads(_ threads: Int, _ body: @escaping @Sendable (Int) throws -> Void) throws {
    let group = DispatchGroup()
    let failure = LockedError()
    for thread in 0 ..< threads {
        group.enter()
        Thread {
            do { try body(thread) } catch { failure.keep(error) }
            group.leave()
        }.start()
    }
    group.wait()
    if let error = failure.error { throw error }
}

/// The first error of several threads.
private final class LockedError: @unchecked Sendable {
    private let lock = NSLock()
    private var first: (any Error)?

    func keep(_ error: any Error) {
        lock.lock()
        if first == nil { first = error }
        lock.unlock()
    }

    var error: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return first
    }
}

extension Workload {
    /// Calls `commit(position)` for every commit position of the round from `writers` threads at
    /// once (thread t takes positions t, t + writers, …): the concurrent-commit scenarios. The
    /// closure must be safe to call from several threads (each engine's is).
    func onWriterThreads(_ commit: @escaping (Int) throws -> Void) throws {
        let shared = Shared((commit, commits, writers))
        try onThreads(writers) { thread in
            let (commit, commits, writers) = shared.value
            for position in stride(from: thread, to: commits, by: writers) { try commit(position) }
        }
    }
}

/// Hands a value that is not `Sendable` to the writer threads of one scenario, which use it the
/// way it allows (an LMDB environment, whose write transactions LMDB serialises; `Workload`'s
/// arrays, only read).
struct Shared<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
