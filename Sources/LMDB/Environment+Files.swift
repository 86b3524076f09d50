import CLMDB
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's device and inode: which file a path names.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    /// The identity of `name` in the directory `directory` (a descriptor), nil when there is none.
    init?(_ name: UnsafePointer<CChar>, in directory: Int32) {
        var status = stat()
        guard fstatat(directory, name, &status, 0) == 0 else { return nil }
        self.init(status)
    }

    /// The identity of the file open as `descriptor`, nil when it cannot be read.
    init?(descriptor: Int32) {
        var status = stat()
        guard descriptor >= 0, fstat(descriptor, &status) == 0 else { return nil }
        self.init(status)
    }

    private init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}

/// `lock.mdb` and `data.mdb` as an environment opened them, to notice either being removed or
/// replaced under it. LMDB keeps using the files it opened: with `lock.mdb` replaced, processes
/// that open the store later lock a new lock table and write while this one does (three runs of
/// that destroyed a store), and this process's readers stop seeing their commits; with `data.mdb`
/// replaced, its writes go to a file no one else reads.
struct OpenedFiles: Sendable {
    static let names = ["lock.mdb", "data.mdb"]
    /// The store's directory, held open: the lock file is looked up in it, not by a path,
    /// so that the directory may be renamed, or the process change its working directory
    /// (with a relative path), without the lock file seeming replaced. -1 when it could not
    /// be opened.
    private let directoryDescriptor: Int32
    /// The identities of `lock.mdb` and `data.mdb` when opened (nil where one could not be read):
    /// the lock file as named in the directory, the data file as LMDB has it open.
    private let identities: [FileIdentity?]

    init(directory: String, handle: OpaquePointer) {
        directoryDescriptor = open(directory, Self.directoryAccess | O_DIRECTORY | O_CLOEXEC)
        var descriptor: mdb_filehandle_t = -1
        let data = mdb_env_get_fd(handle, &descriptor) == 0 ? FileIdentity(descriptor: descriptor) : nil
        let lock = directoryDescriptor >= 0 ? FileIdentity("lock.mdb", in: directoryDescriptor) : nil
        identities = [lock, data]
    }

    /// The index in ``names`` of the first file whose name in the store's directory no longer
    /// names the file opened (removed, or replaced by a rename), or nil: two `fstatat`, about
    /// 1 µs. The data file is compared by name too, not by its count of links: a data file with
    /// another link (a backup made with `ln`) kept a link when replaced, and went unnoticed.
    func replaced() -> Int? {
        guard directoryDescriptor >= 0 else { return nil }
        for (index, opened) in identities.enumerated() {
            if let opened, FileIdentity(Self.names[index], in: directoryDescriptor) != opened { return index }
        }
        return nil
    }

    /// How the directory is opened: on Linux with `O_PATH`, which needs no permission to read
    /// the directory (a store directory of mode 0300 may be entered and written, not listed,
    /// and opening it for reading failed there, which turned the check off), and serves
    /// `fstatat` all the same. Swift's Glibc module leaves `O_PATH` out (it is `_GNU_SOURCE`).
    #if os(Linux)
    private static let directoryAccess: Int32 = 0o10000000   // O_PATH, <bits/fcntl-linux.h>
    #else
    private static let directoryAccess: Int32 = O_RDONLY
    #endif

    /// Closes the directory's descriptor (with the environment).
    func closeDirectory() {
        if directoryDescriptor >= 0 { _ = close(directoryDescriptor) }
    }
}

extension Environment {
    /// Throws ``LMDBError/filesReplaced`` when `lock.mdb` or `data.mdb` is no longer the file this
    /// environment opened (removed, or replaced by another file): writing on would bypass the
    /// locking of processes that opened the new files, and reads no longer see their commits.
    /// Once seen, it stays: the environment must be closed and opened again. Every write checks
    /// before it begins (two `fstatat`, about 1 µs); followers of the journal check as
    /// they poll.
    ///
    /// ```swift
    /// try environment.checkFilesUnchanged()   // "lock.mdb was removed or replaced …"
    /// ```
    public func checkFilesUnchanged() throws(LMDBError) {
        var replaced = replacedFile.load(ordering: .relaxed)
        if replaced == 0, let index = openedFiles.replaced() {
            replaced = index + 1
            replacedFile.store(replaced, ordering: .relaxed)
        }
        guard replaced > 0 else { return }
        throw LMDBError(
            code: LMDBError.filesReplaced.code,
            operation: "\(OpenedFiles.names[replaced - 1]) was removed or replaced while the environment was open")
    }

    /// Whether ``checkFilesUnchanged()`` passes.
    var filesAreUnchanged: Bool { (try? checkFilesUnchanged()) != nil }
}
