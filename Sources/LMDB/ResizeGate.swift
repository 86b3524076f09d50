import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps this process's transactions out of the way while the map size changes.
///
/// `mdb_env_set_mapsize` may only be called when the process has no transaction open. Read
/// transactions pass through ``enter()`` / ``leave()`` (two atomic operations on the fast path);
/// a resize raises a flag, waits for the open readers to drain, resizes, and lowers it.
/// The single writer is already serialised by the environment's write lock.
final class ResizeGate: Sendable {
    private let readers = Atomic<Int>(0)
    private let resizing = Atomic<Bool>(false)
    /// Read transactions open on each thread, so a resize from inside a read can refuse instead of
    /// waiting for itself forever.
    private let depthKey: pthread_key_t

    init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        depthKey = key
    }

    deinit { pthread_key_delete(depthKey) }

    /// The number of read transactions the calling thread has open in this environment.
    var threadReadDepth: Int { Int(bitPattern: pthread_getspecific(depthKey)) }

    private func setThreadReadDepth(_ depth: Int) {
        pthread_setspecific(depthKey, UnsafeRawPointer(bitPattern: depth))
    }

    func enter() {
        if threadReadDepth > 0 {
            // A read nested in one this thread holds: a pending resize is waiting for this thread,
            // so waiting for the resize here would never end.
            readers.wrappingAdd(1, ordering: .sequentiallyConsistent)
            setThreadReadDepth(threadReadDepth + 1)
            return
        }
        while true {
            while resizing.load(ordering: .sequentiallyConsistent) { usleep(50) }
            readers.wrappingAdd(1, ordering: .sequentiallyConsistent)
            if !resizing.load(ordering: .sequentiallyConsistent) { break }
            readers.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        }
        setThreadReadDepth(threadReadDepth + 1)
    }

    func leave() {
        readers.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        setThreadReadDepth(threadReadDepth - 1)
    }

    /// Whether a resize is waiting for the open reads to end, or running.
    var isResizing: Bool { resizing.load(ordering: .sequentiallyConsistent) }

    /// Runs `body` once no read transaction of this process is open.
    /// - Returns: `false` without running `body` when the calling thread itself holds a read
    ///   transaction (waiting would never end).
    func exclusively(_ body: () -> Void) -> Bool {
        if threadReadDepth > 0 { return false }
        resizing.store(true, ordering: .sequentiallyConsistent)
        while readers.load(ordering: .sequentiallyConsistent) > 0 { usleep(50) }
        body()
        resizing.store(false, ordering: .sequentiallyConsistent)
        return true
    }
}
