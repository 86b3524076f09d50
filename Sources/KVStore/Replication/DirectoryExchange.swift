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
    /// cannot exchange, the old directory is first moved aside. The parent directory is synced.
    static func replace(_ path: String, with new: String) throws {
        if FileManager.default.fileExists(atPath: path) {
            if exchange(new, path) != 0 {
                let aside = new + ".old"
                try FileManager.default.moveItem(atPath: path, toPath: aside)
                try FileManager.default.moveItem(atPath: new, toPath: path)
                try? FileManager.default.removeItem(atPath: aside)
                syncParent(of: path)
                return
            }
            syncParent(of: path)
            try? FileManager.default.removeItem(atPath: new)
        } else {
            try FileManager.default.moveItem(atPath: new, toPath: path)
            syncParent(of: path)
        }
    }

    private static func exchange(_ a: String, _ b: String) -> Int32 {
        #if canImport(Glibc)
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return -1 }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        return renameat2(AT_FDCWD, a, AT_FDCWD, b, 2)  // RENAME_EXCHANGE
        #elseif canImport(Darwin)
        return renamex_np(a, b, UInt32(RENAME_SWAP))
        #else
        return -1
        #endif
    }

    private static func syncParent(of path: String) {
        let fd = open((path as NSString).deletingLastPathComponent, O_RDONLY)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
