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
    /// The lock file's identity when opened (nil where it could not be read).
    private let lock: FileIdentity?
    /// LMDB's descriptor of the data file (-1 when it has none).
    private let dataDescriptor: Int32

    init(directory: String, handle: OpaquePointer) {
        directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        lock = directoryDescriptor >= 0 ? FileIdentity("lock.mdb", in: directoryDescriptor) : nil
        var descriptor: mdb_filehandle_t = -1
        dataDescriptor = mdb_env_get_fd(handle, &descriptor) == 0 ? descriptor : -1
    }

    /// The index in ``names`` of the first file no longer in place, or nil: `lock.mdb` when its
    /// name in the store's directory names another file or none (one `fstatat`), `data.mdb` when
    /// the file LMDB has open has no name left (removed, or replaced by a rename; one `fstat`).
    func replaced() -> Int? {
        if let lock, FileIdentity("lock.mdb", in: directoryDescriptor) != lock { return 0 }
        var status = stat()
        if dataDescriptor >= 0, fstat(dataDescriptor, &status) == 0, status.st_nlink == 0 { return 1 }
        return nil
    }

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
    /// before it begins (a `stat` and an `fstat`, about 1 µs); followers of the journal check as
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
