import Synchronization

/// A value that threads share, behind a `Mutex`. A class, so that an escaping closure (a timer's
/// handler) can hold it: a `Mutex` is noncopyable and cannot be captured by one.
///
/// ```swift
/// let latest = LockedValue<Replicator.Status?>(nil)
/// latest.withLock { $0 = status }
/// ```
final class LockedValue<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with the value, holding the lock. Not reentrant.
    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }
}
