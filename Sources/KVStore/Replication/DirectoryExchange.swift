import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Putting a directory built beside another in its place.
enum DirectoryExchange {
    /// Moves `new` to `path`: a rename when nothing is at `path`; otherwise an atomic exchange
    /// (`renameat2(RENAME_EXCHANGE)`, `renamex_np(RENAME_SWAP)`) so that `path` always holds one
    /// whole directory or the other, then the old one (now at `new`) is removed. Where the system
    /// cannot exchange (no such call, or a file system without it), the old directory is first
    /// moved aside, and moved back if `new` cannot take its place. Any other failure leaves both
    /// where they were. The parent directory is synced.
    static func replace(_ path: String, with new: String) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            try move(new, to: path, path: path)
            return syncParent(of: path)
        }
        let failure = exchange(new, path)
        if failure == 0 {
            syncParent(of: path)
            try? FileManager.default.removeItem(atPath: new)
            return
        }
        guard failure == EINVAL || failure == ENOSYS || failure == ENOTSUP else {
            throw placingError(failure, path: path)
        }
        let aside = new + ".old"
        try move(path, to: aside, path: path)
        do {
            try move(new, to: path, path: path)
        } catch {
            rename(aside, path)
            throw error
        }
        try? FileManager.default.removeItem(atPath: aside)
        syncParent(of: path)
    }

    /// Renames `source` to `target` (which must be absent or an empty directory), as one line
    /// naming the replica at `path` when it cannot (not Foundation's error dump).
    private static func move(_ source: String, to target: String, path: String) throws(StoreError) {
        guard rename(source, target) != 0 else { return }
        throw placingError(errno, path: path)
    }

    private static func placingError(_ failure: Int32, path: String) -> StoreError {
        StoreError(.storage, "cannot put the new replica in place: \(String(cString: strerror(failure)))", path: path)
    }

    /// Exchanges `a` and `b`.
    /// - Returns: 0, or the `errno` of the failure (`ENOSYS` without the call).
    private static func exchange(_ a: String, _ b: String) -> Int32 {
        #if canImport(Glibc)
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return ENOSYS }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        return renameat2(AT_FDCWD, a, AT_FDCWD, b, 2) == 0 ? 0 : errno  // RENAME_EXCHANGE
        #elseif canImport(Darwin)
        return renamex_np(a, b, UInt32(RENAME_SWAP)) == 0 ? 0 : errno
        #else
        return ENOSYS
        #endif
    }

    private static func syncParent(of path: String) {
        let fd = open(PathComponents(path).parent, O_RDONLY)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
