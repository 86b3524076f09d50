#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import KVStore
import NIOConcurrencyHelpers

/// A store's snapshot (``Store/writeSnapshot(to:)``) read as it is written, through a pipe: the
/// server sends it without a copy on disk.
enum SnapshotPipe {
    /// Writes `store`'s snapshot into a pipe on a thread of its own and hands what arrives to
    /// `body`, in chunks of at most `chunk` bytes. When `body` throws, the rest is read and
    /// dropped (the writer must not find the pipe closed), then its error is rethrown.
    /// - Throws: what `body` throws; ``ServerError`` when the snapshot cannot be made.
    static func stream(of store: Store, chunk: Int, to body: ([UInt8]) throws -> Void) throws {
        var descriptors: [Int32] = [-1, -1]
        // Close-on-exec: a process this one starts meanwhile must not inherit the write end, which
        // would keep the read below from ever seeing the end of the snapshot. (`pipe2` is not in
        // Swift's Glibc module.)
        guard pipe(&descriptors) == 0 else {
            throw ServerError("cannot make a pipe for the snapshot: \(String(cString: strerror(errno)))")
        }
        let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let failure = NIOLockedValueBox<String?>(nil)
        let written = DispatchSemaphore(value: 0)
        Thread {
            do { try store.writeSnapshot(to: writeEnd) } catch { failure.withLockedValue { $0 = "\(error)" } }
            close(writeEnd)
            written.signal()
        }.start()
        var buffer = [UInt8](repeating: 0, count: chunk)
        var bodyError: (any Error)?
        var readError: String?
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                while true {
                    let n = read(readEnd, raw.baseAddress!, raw.count)
                    if n < 0 && errno == EINTR { continue }
                    return n
                }
            }
            if count < 0 { readError = String(cString: strerror(errno)); break }
            if count == 0 { break }
            guard bodyError == nil else { continue }
            do { try body(Array(buffer[0..<count])) } catch { bodyError = error }
        }
        close(readEnd)
        written.wait()
        if let bodyError { throw bodyError }
        if let readError { throw ServerError("reading the snapshot failed: \(readError)") }
        if let failure = failure.withLockedValue({ $0 }) { throw ServerError("the snapshot failed: \(failure)") }
    }
}
