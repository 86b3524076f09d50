import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to files and pipes with every write checked: a failed or short write (a full disk, an
/// I/O error, a closed pipe) is reported, never dropped, and the message names the file system
/// that refused it.
///
/// ```swift
/// if let failure = FileWriting.writeAll(bytes, to: descriptor) {
///     throw StoreError(.noSpace, FileWriting.message(failure, writing: "the snapshot", to: file))
/// }
/// ```
package enum FileWriting {
    /// Writes all of `bytes` to `descriptor`, retrying after interruptions and short writes.
    /// - Returns: nil when everything was written, else the `errno` of the write that failed
    ///   (`EIO` for a write that wrote nothing).
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if written == 0 { return EIO }
            offset += written
        }
        return nil
    }

    /// ``writeAll(_:to:)`` for an array.
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { writeAll($0, to: descriptor) }
    }

    /// Whether `failure` (an `errno`) means the file system has no room: full, or over quota.
    package static func isNoSpace(_ failure: Int32) -> Bool { failure == ENOSPC || failure == EDQUOT }

    /// `cannot write <what> (<file>): <error>; the file system mounted on <mount point> is full`,
    /// the last part for a full file system or quota only.
    package static func message(_ failure: Int32, writing what: String, to file: String) -> String {
        var text = "cannot write \(what) (\(file)): \(String(cString: strerror(failure)))"
        if isNoSpace(failure) { text += "; the file system mounted on \(mountPoint(of: file)) is full" }
        return text
    }

    /// The directory the file system holding `path` (or, when `path` does not exist, its nearest
    /// existing parent) is mounted on: the outermost parent on the same device.
    package static func mountPoint(of path: String) -> String {
        var current = URL(fileURLWithPath: path).standardizedFileURL.path
        var status = stat()
        while stat(current, &status) != 0 {
            let parent = PathComponents(current).parent
            if parent == current { return current }
            current = parent
        }
        let device = status.st_dev
        while current != "/" {
            let parent = PathComponents(current).parent
            var parentStatus = stat()
            guard stat(parent, &parentStatus) == 0, parentStatus.st_dev == device else { break }
            current = parent
        }
        return current
    }

    /// The `errno` underneath `error`: an LMDB error's code, or the POSIX error a Foundation file
    /// operation wraps (`ENOSPC` for its out-of-space error). Nil for other errors.
    package static func errorNumber(of error: any Error) -> Int32? {
        if let error = error as? StoreError, let underlying = error.underlying { return underlying.code }
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return Int32(error.code) }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        // Foundation reports a full disk without the POSIX error underneath.
        if error.domain == NSCocoaErrorDomain && error.code == CocoaError.fileWriteOutOfSpace.rawValue { return ENOSPC }
        return nil
    }

    /// The error for a failed write of `what` to `file`: ``StoreError/Code/noSpace`` when the file
    /// system is full, else ``StoreError/Code/storage``; about the store at `path`.
    package static func failure(_ failure: Int32, writing what: String, to file: String, path: String?) -> StoreError {
        StoreError(isNoSpace(failure) ? .noSpace : .storage, message(failure, writing: what, to: file), path: path)
    }
}
