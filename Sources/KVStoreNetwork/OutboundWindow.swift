import NIOConcurrencyHelpers

/// Back-pressure for one connection: the bytes handed to the channel and not yet written to
/// its socket. A sender waits while they reach the high-water mark, so a replica that reads
/// slowly (or not at all) holds the server to at most the mark plus one chunk for it, however
/// much journal it still has to receive.
final class OutboundWindow: Sendable {
    /// The window closed: the connection is gone.
    struct Closed: Error {}

    private struct State: Equatable {
        var outstanding = 0
        var closed = false
        /// Closed because a sender waited longer than the stall time-out.
        var stalled = false
        /// Most bytes outstanding at once.
        var peak = 0
        /// Sends that had to wait for room.
        var waits = 0
    }

    let highWaterMark: Int
    /// How long a sender waits for room before the window closes as stalled.
    let stallTimeout: Duration
    /// The lock's value says whether a sender may go on: there is room, or the window closed.
    private let condition = ConditionLock<Bool>(value: true)
    private let state = NIOLockedValueBox(State())

    init(highWaterMark: Int, stallTimeout: Duration) {
        self.highWaterMark = max(1, highWaterMark)
        self.stallTimeout = stallTimeout
    }

    /// Waits until fewer bytes than the high-water mark are outstanding, then counts `count`
    /// more.
    /// - Throws: ``Closed`` once the window is closed — by ``close()``, or by this wait lasting longer
    ///   than the stall time-out (``isStalled``).
    func reserve(_ count: Int) throws(Closed) {
        if !condition.lock(whenValue: true, timeoutSeconds: 0) {
            state.withLockedValue { $0.waits += 1 }
            guard condition.lock(whenValue: true, timeoutSeconds: min(max(stallTimeout.seconds, 0), 1e9)) else {
                condition.lock()
                state.withLockedValue { $0.closed = true; $0.stalled = true }
                condition.unlock(withValue: true)
                throw Closed()
            }
        }
        let closed = state.withLockedValue { state in
            if !state.closed {
                state.outstanding += count
                state.peak = max(state.peak, state.outstanding)
            }
            return state.closed
        }
        condition.unlock(withValue: mayGoOn)
        if closed { throw Closed() }
    }

    /// Counts `count` more bytes when there is room now, without waiting.
    /// - Returns: whether it did.
    func reserveIfRoom(_ count: Int) -> Bool {
        condition.lock()
        let reserved = state.withLockedValue { state in
            guard !state.closed, state.outstanding < highWaterMark else { return false }
            state.outstanding += count
            state.peak = max(state.peak, state.outstanding)
            return true
        }
        condition.unlock(withValue: mayGoOn)
        return reserved
    }

    /// `count` bytes were written (or failed to be): they no longer count.
    func release(_ count: Int) {
        condition.lock()
        state.withLockedValue { $0.outstanding -= count }
        condition.unlock(withValue: mayGoOn)
    }

    /// Closes the window: waiting and later senders get ``Closed``.
    func close() {
        condition.lock()
        state.withLockedValue { $0.closed = true }
        condition.unlock(withValue: true)
    }

    /// Whether the window was closed.
    var isClosed: Bool { state.withLockedValue { $0.closed } }

    /// Whether the window closed because a sender waited for room too long.
    var isStalled: Bool { state.withLockedValue { $0.stalled } }

    /// The most bytes outstanding at once, and how many sends waited for room.
    var statistics: (peak: Int, waits: Int) { state.withLockedValue { ($0.peak, $0.waits) } }

    private var mayGoOn: Bool { state.withLockedValue { $0.closed || $0.outstanding < highWaterMark } }
}
