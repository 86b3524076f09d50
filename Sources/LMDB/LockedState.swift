#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// State guarded by a POSIX mutex.
///
/// Used instead of `Synchronization.Mutex` because ThreadSanitizer understands `pthread_mutex`
/// (on Linux, `Mutex` waits with futexes that it does not see, and reports false races), so the
/// sanitizer runs stay meaningful.
///
/// ```swift
/// let counts = LockedState([String: Int]())
/// counts.withLock { $0["a", default: 0] += 1 }
/// ```
package final class LockedState<State>: @unchecked Sendable {
    // The state lives in its own allocation, accessed through a pointer: as a stored property
    // of an empty type (`LockedState(())`) ThreadSanitizer saw each `&state` access as a write
    // at the object's address, racing with the unlocked retains of the object itself.
    private let state: UnsafeMutablePointer<State>
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init(_ state: State) {
        self.state = .allocate(capacity: 1)
        self.state.initialize(to: state)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the state, holding the lock. Not reentrant.
    package func withLock<T, E: Error>(_ body: (inout State) throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state.pointee)
    }
}
