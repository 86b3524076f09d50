import Dispatch
import LMDB

/// What a follower waits on between polls: woken by ``wake()`` — a commit in this process, or the
/// store's file changing (``CommitWatcher``) — or when its wait times out. A wake-up that comes
/// while nobody waits is kept for the next wait, so none is lost between a poll and the wait.
/// Used either by one thread (``wait(timeout:)``) or by one task (``waitAsync(timeout:)``).
final class CommitWakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Bool, Never>?
        /// Numbers the async waits, so that a timer fires only for the wait that set it.
        var generation: UInt64 = 0
    }

    private let state = LockedState(State())
    private let semaphore = DispatchSemaphore(value: 0)

    /// Wakes the waiter, or the next wait.
    func wake() {
        let (waiter, signal) = state.withLock { state -> (CheckedContinuation<Bool, Never>?, Bool) in
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, false)
            }
            defer { state.pending = true }
            return (nil, !state.pending)
        }
        waiter?.resume(returning: true)
        if signal { semaphore.signal() }
    }

    /// Blocks the thread until woken or `timeout` passed.
    /// - Returns: whether it was woken.
    @discardableResult
    func wait(timeout: Duration) -> Bool {
        let woken = semaphore.wait(timeout: .now() + timeout.seconds) == .success
        state.withLock { $0.pending = false }
        return woken
    }

    /// Suspends the task until woken, cancelled or `timeout` passed.
    /// - Returns: whether it was woken (or cancelled) rather than timed out.
    @discardableResult
    func waitAsync(timeout: Duration) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let generation = state.withLock { state -> UInt64? in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return nil
                    }
                    state.generation += 1
                    state.waiter = continuation
                    return state.generation
                }
                guard let generation else { return continuation.resume(returning: true) }
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds) { [self] in
                    let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                        guard state.generation == generation else { return nil }
                        defer { state.waiter = nil }
                        return state.waiter
                    }
                    waiter?.resume(returning: false)
                }
            }
        } onCancel: {
            wake()
        }
    }
}
