import Foundation
import LMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks on a store's files made before and just after LMDB opens them, for what LMDB itself
/// would follow or trust blindly.
///
/// - `data.mdb` and `lock.mdb` must be regular files when present: LMDB opens them with
///   `O_CREAT` and would follow a symbolic link — writing a store wherever the link points.
/// - The data file must hold every page its meta page names: LMDB maps the file and would
///   fault (`SIGBUS`) reading a page past the end of a truncated one. Free pages missing at its
///   end are allowed: newer LMDB versions never write some of them (``lacksOnlyFreePages(_:pageSize:)``).
/// - The lock file gets its disk blocks before LMDB maps it (`fallocate`, keeping its size):
///   LMDB sizes it with `ftruncate`, which makes a sparse file, and writes to it through a shared
///   map, so on a full disk the first write to a page without a block killed the process with
///   `SIGBUS`; now opening fails with ``StoreError/Code/noSpace``.
/// - A store directory that is made gets the file mode's read and write bits, with search
///   (`x`) wherever reading is allowed: `0o600` → `0o700`, `0o640` → `0o750`.
///
/// ```swift
/// let size = try StoreFiles.checkRegular(in: path)   // nil: no data.mdb yet
/// ```
enum StoreFiles {
    static let names = ["data.mdb", "lock.mdb"]

    /// Refuses a store directory that cannot be entered, or whose files are not regular files.
    /// - Returns: the data file's size, or nil when there is none.
    static func checkRegular(in path: String) throws(StoreError) -> Int? {
        if access(path, X_OK) != 0 && errno == EACCES {
            throw StoreError(.permissionDenied, "permission denied reading the store directory", path: path)
        }
        var dataSize: Int?
        for name in names {
            var status = stat()
            let file = (path as NSString).appendingPathComponent(name)
            guard lstat(file, &status) == 0 else { continue }
            let type = status.st_mode & S_IFMT
            if type == S_IFLNK {
                throw StoreError(
                    .notAStore, "\(name) is a symbolic link; a store's files must be regular files in its directory", path: path)
            }
            if type != S_IFREG {
                throw StoreError(.notAStore, "not a kvstore store (\(name) is not a regular file)", path: path)
            }
            if name == "data.mdb" { dataSize = Int(status.st_size) }
        }
        return dataSize
    }

    /// Refuses a data file shorter than the pages its last committed meta page names (a file cut
    /// short by a copy or a broken disk), before any of those pages is read. Free pages missing at the
    /// end are not a truncation.
    static func checkSize(of environment: Environment, path: String) throws(StoreError) {
        let statistics = environment.statistics()
        let needed = statistics.bytesUsed
        var status = stat()
        let file = (path as NSString).appendingPathComponent("data.mdb")
        guard stat(file, &status) == 0, Int(status.st_size) < needed else { return }
        // Far more pages than the file holds: the meta page is damaged, which the page check says.
        if (needed - Int(status.st_size)) / max(1, statistics.pageSize) > PageCheckReport.missingPagesAllowed { return }
        // Pages allocated and freed by one commit may never have been written (see
        // ``lacksOnlyFreePages(_:pageSize:)``); the read transaction keeps them from being reused.
        let pageSize = statistics.pageSize
        if (try? environment.read { _ in lacksOnlyFreePages(file, pageSize: pageSize) }) == true { return }
        throw StoreError(
            .corrupt,
            "data.mdb is truncated: \(status.st_size) bytes, but its pages reach \(needed) bytes; restore it from a copy",
            path: path)
    }

    /// The size LMDB gives a new lock file (`mdb_env_setup_locks`): a 192-byte header (two
    /// cache-line-padded blocks and the first reader) and a 64-byte slot for each further reader,
    /// on Linux with glibc's 40-byte robust mutexes.
    static func lockFileSize(maxReaders: Int) -> Int { 192 + (maxReaders - 1) * 64 }

    /// Gives `lock.mdb` its disk blocks before LMDB maps it: when it is absent or empty, the blocks
    /// of the size LMDB will give it (the size stays 0: LMDB's first opener sets it), else the
    /// blocks of its present size. Does nothing
    /// where the file cannot be opened for writing (a read-only store or file system: LMDB says why).
    static func allocateLockFile(in path: String, maxReaders: Int, fileMode: UInt32) throws(StoreError) {
        #if os(Linux)
        let file = (path as NSString).appendingPathComponent("lock.mdb")
        let descriptor = open(file, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode_t(fileMode & 0o777))
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return }
        let size = status.st_size > 0 ? Int(status.st_size) : lockFileSize(maxReaders: maxReaders)
        let result = allocateKeepingSize(descriptor, bytes: size)
        if result == ENOSPC || result == EDQUOT {
            // The file stays, even empty: another process's LMDB may have it open and not yet
            // sized, and removing it would let the next opener make a second lock table.
            throw StoreError(.noSpace, "no space left on the device for the store's lock file; nothing was written", path: path)
        }
        #endif
    }

    /// `fallocate(descriptor, FALLOC_FL_KEEP_SIZE, 0, bytes)`: the blocks, not the size. LMDB sizes
    /// the lock file itself (`ftruncate` in `mdb_env_setup_locks`, by the first opener, which
    /// derives the reader table's length from it), and the blocks stay with the file when it grows
    /// over them, so LMDB's map of it is backed. Changing the size instead could enlarge a lock
    /// file another process's LMDB has just sized for fewer readers: openers after it would use
    /// reader slots that process never scans. Falls back to `posix_fallocate` (which sets the size)
    /// where the file system cannot keep the size.
    /// - Returns: 0 or an `errno` value.
    private static func allocateKeepingSize(_ descriptor: Int32, bytes: Int) -> Int32 {
        #if os(Linux)
        // Swift's Glibc module is built without `_GNU_SOURCE`, which declares `fallocate(2)`.
        typealias Fallocate = @convention(c) (Int32, Int32, off_t, off_t) -> Int32
        let keepSize: Int32 = 0x01  // FALLOC_FL_KEEP_SIZE, <linux/falloc.h>
        if let symbol = dlsym(nil, "fallocate") {
            let fallocate = unsafeBitCast(symbol, to: Fallocate.self)
            if fallocate(descriptor, keepSize, 0, off_t(bytes)) == 0 { return 0 }
            if errno != EOPNOTSUPP && errno != ENOSYS { return errno }
        }
        #endif
        return posix_fallocate(descriptor, 0, off_t(bytes))
    }

    /// Whether the file system holding `path` has no block left for this process's writes: none
    /// available to it (root may also use the blocks reserved for it). A file system reporting no
    /// blocks at all (`/proc`, some FUSE and network file systems) is not full.
    static func deviceIsFull(_ path: String) -> Bool {
        var status = statvfs()
        guard statvfs(path, &status) == 0, status.f_blocks > 0 else { return false }
        return (geteuid() == 0 ? status.f_bfree : status.f_bavail) == 0
    }

    /// The mode of a store directory made for files of `fileMode`.
    static func directoryMode(for fileMode: UInt32) -> Int {
        var mode = fileMode & 0o777
        for (read, search) in [(UInt32(0o400), UInt32(0o100)), (0o040, 0o010), (0o004, 0o001)] where mode & read != 0 {
            mode |= search
        }
        return Int(mode | 0o700)
    }
}
