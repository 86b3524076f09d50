import CLMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The environments open in this process, one per directory.
///
/// LMDB's rule: a process must not open the same environment twice at once — closing the second
/// handle's file descriptors would drop the first one's POSIX locks, and another process could then
/// reset the lock file under it. ``Environment/open(path:options:)`` therefore hands out the
/// environment already open for a directory (identified by device and inode, so different
/// spellings of one path match), and a new one is opened only after the old one has fully closed.
/// An open environment is handed out only while its data file is still the directory's
/// `data.mdb` (and its lock file `lock.mdb`): once the files were removed or replaced (or the directory was removed and its
/// inode reused by a new one), the directory gets an environment of its own, and the old one goes
/// on with its own files until released.
enum EnvironmentRegistry {
    struct DirectoryID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    final class Entry: @unchecked Sendable {
        weak var environment: Environment?
        /// The environment's handle, to tell its own entry from a later one for the directory.
        let handle: OpaquePointer
        /// The device and inode of the data file the environment has open.
        let dataFile: DirectoryID?
        init(_ environment: Environment) {
            self.environment = environment
            handle = environment.handle
            dataFile = Self.openDataFile(environment.handle)
        }

        private static func openDataFile(_ handle: OpaquePointer) -> DirectoryID? {
            var fd: mdb_filehandle_t = -1
            var info = stat()
            guard mdb_env_get_fd(handle, &fd) == 0, fstat(fd, &info) == 0 else { return nil }
            return DirectoryID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        }
    }

    static let entries = LockedState<[DirectoryID: Entry]>([:])

    static func directoryID(_ path: String) -> DirectoryID? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return DirectoryID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The open environment for `path`, or a new one made by `make` once no other is open or closing.
    static func environment(
        for path: String, _ make: () throws(LMDBError) -> Environment
    ) throws(LMDBError) -> Environment {
        guard let id = directoryID(path) else { return try make() }  // let LMDB report the path's problem
        while true {
            let outcome: Result<Environment, LMDBError>? = entries.withLock { table in
                if let entry = table[id] {
                    // Closing (deinit under way): wait for it to finish.
                    guard let environment = entry.environment else { return nil }
                    // Open on the directory's files: share it.
                    if entry.dataFile != nil, entry.dataFile == directoryID(path + "/data.mdb"), environment.filesAreUnchanged {
                        return .success(environment)
                    }
                    // Its files are gone from the directory: open the directory's own.
                    table[id] = nil
                }
                let result = Result { () throws(LMDBError) in try make() }
                if case .success(let environment) = result {
                    environment.registryID = id
                    table[id] = Entry(environment)
                }
                return result
            }
            if let outcome { return try outcome.get() }
            usleep(100)
        }
    }

    /// Closes `handle` and forgets the directory, under the registry's lock so that no new
    /// environment opens for it until the old one is closed.
    static func close(_ handle: OpaquePointer, id: DirectoryID?) {
        guard let id else { return mdb_env_close(handle) }
        entries.withLock { table in
            mdb_env_close(handle)
            if table[id]?.handle == handle { table[id] = nil }
        }
    }
}
