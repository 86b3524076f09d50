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

    /// Runs `body` in a write transaction and returns its result to the caller's task once the
    /// write committed at the store's ``Options/durability``, without holding a thread while it
    /// waits: callers queue, and their writes commit together, as lmdb-js commits.
    ///
    /// Async writes go through a pipeline of the store's (one per environment): one commit thread
    /// takes every write queued and commits them as one group — one LMDB transaction, each
    /// write's `body` in a nested transaction of its own, as in a group commit of
    /// ``write(_:)-2jclw`` — while the writes that arrive meanwhile queue for the next group. With
    /// `.full` the group's data pages are synced inside the write lock, and its meta
    /// page by another thread after the lock is released, while the next group already commits;
    /// the group's callers resume only once that sync returned. So a task (or several) that keeps
    /// many writes in flight makes a few syncs per group instead of two per write. Each write
    /// still is a commit of its own: its own commit id (ids increase in the order the writes were
    /// queued), its contiguous journal entries, its observer notifications (delivered in commit
    /// order before the caller resumes), its own outcome — a `body` that throws drops only its
    /// own changes and its caller gets its error, while the rest of the group commits; a failed
    /// commit or sync fails every write of the group (a failed sync leaves the group committed
    /// but perhaps not durable).
    ///
    /// `body` is `@Sendable` and not isolated to any actor: it runs on the store's commit thread,
    /// or on the thread of a synchronous ``write(_:)-2jclw`` that leads the group it joined — never on
    /// the caller's actor (the main actor included), and the caller resumes on its own actor.
    /// `body` may run more than once when the store grows its map. Do not wait inside `body` for
    /// another write to return: it may be in the same group, waiting for `body`.
    ///
    /// A task cancelled before `body` started (while its write is queued) does not run it,
    /// commits nothing and throws `CancellationError`. Once `body` started, the write runs to its
    /// end and commits; the cancellation is not seen.
    /// - Throws: `CancellationError`, ``StoreError`` (``StoreError/Code/readOnly`` before it
    ///   queues), or what `body` throws (then nothing of it commits).
    public func write<T: Sendable>(_ body: @escaping @Sendable (WriteTransaction) throws -> T) async throws -> T {
        if options.readOnly {
            throw StoreError(.readOnly, "the store is open read-only", path: path)
        }
        try Task.checkCancellation()
        let job = StoreJob<T>()
        let write = StoreGroupedWrite(store: self) { txn in
            try job.start()
            return try body(txn)
        }
        let pipeline = options.groupsCommits ? threads.commits : threads.ungroupedCommits
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard job.wait(continuation) else { return write.grouped.dropClosures() }
                pipeline.submit(AsyncCommitQueue.Job(environment: environment, write: write.grouped) { syncError in
                    job.finish(Result {
                        if let syncError {
                            if let error = syncError as? LMDBError { throw self.writeError(error) }
                            throw syncError
                        }
                        return try write.outcome()
                    })
                    write.grouped.dropClosures()
                })
            }
        } onCancel: {
            job.cancel()
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
