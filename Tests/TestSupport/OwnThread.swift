import Foundation

/// Runs blocking work (a child process and the wait for it) on a thread of its own: Swift
/// concurrency runs every async test on as many threads as there are cores, and work that blocks
/// one of them stalls the others' timers and I/O.
///
/// ```swift
/// let cluster = try await onOwnThread { try PostgreSQLCluster() }
/// ```
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
