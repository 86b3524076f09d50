import LMDB

/// Reads and writes for Swift concurrency: see <doc:Concurrency>.
extension Store {
    /// Runs `body` in a read transaction on one of the store's reader threads, and returns its
    /// result to the caller's task without blocking a thread of the Swift concurrency pool.
    ///
    /// `body` is `@Sendable` and not isolated to any actor: it never runs on the caller's actor
    /// (the main actor included), and the caller resumes on its own actor when `body` is done.
    /// A task cancelled before `body` started does not run it and throws `CancellationError`;
    /// once `body` started, it runs to the end (`Task.isCancelled` is false inside: `body` runs
    /// outside the task).
    /// - Throws: `CancellationError`, ``StoreError``, or what `body` throws.
    public func read<T: Sendable>(_ body: @escaping @Sendable (ReadTransaction) throws -> T) async throws -> T {
        try await onStoreThread(threads.readers) { start in
            try self.read { txn in
                try start()
                return try body(txn)
            }
        }
    }

    /// Runs `body` in a write transaction on one of the store's writer threads, as ``write(_:)-2jclw``
    /// does — one commit, group commit with other writes waiting, observers notified before it
    /// returns, at the store's ``Options/durability`` — and returns its result to the caller's task
    /// without blocking a thread of the Swift concurrency pool.
    ///
    /// `body` is `@Sendable` and not isolated to any actor: it runs on a writer thread of the store,
    /// or, when it joins a group commit led by a synchronous ``write(_:)-2jclw``, on that writer's thread
    /// (see ``write(_:)-2jclw``) — never on the caller's actor (the main actor included), and the caller
    /// resumes on its own actor once the write committed. `body` may run more than once when the
    /// store grows its map.
    ///
    /// A task cancelled before `body` started (waiting for a writer thread or for its turn in the
    /// write queue) does not run it, commits nothing and throws `CancellationError`. Once `body`
    /// started, the write runs to its end and commits; the cancellation is not seen (``write(_:)-2jclw``
    /// returns the result as if the task had not been cancelled).
    /// - Throws: `CancellationError`, ``StoreError``, or what `body` throws (then nothing commits).
    public func write<T: Sendable>(_ body: @escaping @Sendable (WriteTransaction) throws -> T) async throws -> T {
        try await onStoreThread(threads.writers) { start in
            try self.write { txn in
                try start()
                return try body(txn)
            }
        }
    }

    /// Runs `work` on one of `workers`' threads and resumes the caller with its outcome. `work`
    /// calls the `start` it is given right before the caller's closure: that throws
    /// `CancellationError` when the task was cancelled, else marks the job started (uncancellable).
    func onStoreThread<T: Sendable>(
        _ workers: StoreWorkers, _ work: @escaping @Sendable (_ start: () throws -> Void) throws -> T
    ) async throws -> T {
        try Task.checkCancellation()
        let job = StoreJob<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard job.wait(continuation) else { return }
                workers.submit {
                    guard !job.isCancelled else { return }
                    job.finish(Result { try work { try job.start() } })
                }
            }
        } onCancel: {
            job.cancel()
        }
    }
}

/// One async read or write on the store's threads: its continuation, resumed exactly once —
/// with the outcome, or with `CancellationError` when the task is cancelled before the
/// caller's closure started.
final class StoreJob<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var cancelled = false
        var started = false
    }

    private let state = LockedState(State())

    /// Keeps `continuation` to resume later.
    /// - Returns: false, having resumed it with `CancellationError`, when already cancelled.
    func wait(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
        let cancelled = state.withLock { state in
            if !state.cancelled { state.continuation = continuation }
            return state.cancelled
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        return !cancelled
    }

    /// The task was cancelled: unless the closure started, resume the caller now.
    func cancel() {
        let continuation = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard !state.started else { return nil }
            state.cancelled = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(throwing: CancellationError())
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Called right before the caller's closure: throws when cancelled, else makes the job
    /// uncancellable.
    func start() throws {
        try state.withLock { state in
            if state.cancelled { throw CancellationError() }
            state.started = true
        }
    }

    /// Resumes the caller with `result`, unless cancellation resumed it already.
    func finish(_ result: Result<T, any Error>) {
        let continuation = state.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }
}
