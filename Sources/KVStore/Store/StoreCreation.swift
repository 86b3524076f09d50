import Foundation
import LMDB
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a new store comes to be, so that a store's directory never holds half a store.
///
/// The store is built whole in a hidden directory inside the store's directory,
/// `.kvstore-creating-<uuid>` (locked with `flock` while it is built): its LMDB environment, its
/// databases and its metadata, committed and synced. Then its `data.mdb` is hard-linked into the
/// store's directory — an atomic step that fails when a `data.mdb` is already there — and the
/// hidden directory is removed. Hence the rule:
///
/// - A `data.mdb` in a store's directory was complete when it appeared. An empty or foreign one
///   (an empty file, an LMDB environment without kvstore metadata) is never an interrupted
///   creation by this code: it is refused like any damaged store, by every command.
/// - A creation killed part way leaves only its hidden directory, which is no store and does not
///   make the directory "not empty": the next creation removes it (when no process holds its lock).
/// - A creation that fails (a full disk) removes its hidden directory: nothing is left.
/// - Creators racing for one directory each build their own store; the first link wins, and the
///   others open the store it made.
///
/// (kvstore before this rule created the files in place; an empty `lock.mdb` alone, left by such
/// a creation on a full disk, is taken as a leftover too. An empty `data.mdb` it left is refused.)
package enum StoreCreation {
    /// The name prefix of the hidden directories stores are built in.
    static let prefix = ".kvstore-creating-"

    /// The ids of the stores this process created, for ``removeCreated(at:keepingLockFile:)``.
    private static let created = Mutex<Set<UUID>>([])

    /// Creates a store in the directory `path`, which holds no `data.mdb`: builds it beside, then
    /// links its data file in. When another process links one first, its store is kept and
    /// nothing is created here.
    /// - Throws: ``StoreError`` (`noSpace`, `permissionDenied`, `storage`); nothing is left then.
    static func create(in path: String, options: Store.Options) throws(StoreError) {
        removeLeftovers(in: path)
        let building = try BuildingDirectory(in: path)
        defer { building.remove() }
        let id = try build(in: building.path, options: options, storePath: path)
        let source = (building.path as NSString).appendingPathComponent("data.mdb")
        let target = (path as NSString).appendingPathComponent("data.mdb")
        if link(source, target) != 0 {
            if errno == EEXIST { return }  // another creator was first: its store is the one
            throw StoreError(.storage, "cannot put the new store's data file in place: \(String(cString: strerror(errno)))", path: path)
        }
        created.withLock { _ = $0.insert(id) }
        syncDirectory(path)
    }

    /// Makes the environment and the store's metadata in `directory`, synced.
    /// - Returns: the store id.
    private static func build(in directory: String, options: Store.Options, storePath: String) throws(StoreError) -> UUID {
        do {
            try StoreFiles.allocateLockFile(in: directory, maxReaders: Int(Environment.Options().maxReaders), fileMode: options.fileMode)
        } catch {
            throw StoreError(error.code, error.message, path: storePath, underlying: error.underlying)
        }
        do {
            let environment = try Environment.open(path: directory, options: .init(
                mapSize: options.mapSize, maxMapSize: options.maxMapSize, maxDatabases: 16,
                readOnly: false, durability: options.durability, fileMode: options.fileMode,
                syncInterval: options.syncInterval))
            let id = try environment.write { txn in try writeMetadata(txn) }
            try environment.sync(force: true)
            return id
        } catch let error as LMDBError {
            throw StoreError.storage(error, path: storePath)
        } catch {
            throw StoreError(.storage, "cannot create the store: \(error)", path: storePath)
        }
    }

    /// Makes a new store's databases and metadata: format version, a new store id, the time made.
    /// - Returns: the store id.
    private static func writeMetadata(_ txn: LMDB.Transaction) throws -> UUID {
        _ = try txn.openDatabase(StoreLayout.records, create: true)
        _ = try txn.openDatabase(StoreLayout.journal, create: true)
        _ = try txn.openDatabase(StoreLayout.indexes, create: true)
        let meta = try txn.openDatabase(StoreLayout.meta, create: true)
        let id = UUID()
        try txn.put(StoreLayout.MetaKey.format, withUnsafeBytes(of: StoreLayout.formatVersion.littleEndian, Array.init), in: meta)
        try txn.put(StoreLayout.MetaKey.storeID, withUnsafeBytes(of: id.uuid, Array.init), in: meta)
        try txn.put(StoreLayout.MetaKey.created, StoreLayout.uint64(Date().timeIntervalSince1970.bitPattern), in: meta)
        return id
    }

    /// Removes the hidden directories of creations that were killed (those no process holds locked).
    private static func removeLeftovers(in path: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        for name in names where name.hasPrefix(prefix) {
            let leftover = (path as NSString).appendingPathComponent(name)
            let descriptor = open(leftover, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }  // being built
            try? FileManager.default.removeItem(atPath: leftover)
        }
    }

    private static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}

extension StoreCreation {
    /// Removes the store at `path` when this process created it, nothing was journaled in it
    /// (unless `journaled` allows it), and no other process has it open (none holds LMDB's lock
    /// on its `lock.mdb`): a command that made a store and then failed takes it back, and never a
    /// store another creator made, nor one another process wrote or uses. Release every `Store`
    /// of `path` first. Keeps `lock.mdb` with `keepingLockFile` (it was there before).
    /// - Returns: whether the store's files were removed.
    @discardableResult
    package static func removeCreated(at path: String, keepingLockFile: Bool, journaled: Bool = false) -> Bool {
        var options = Store.Options()
        options.createIfMissing = false
        options.readOnly = true
        let data = (path as NSString).appendingPathComponent("data.mdb")
        let lock = (path as NSString).appendingPathComponent("lock.mdb")
        guard let before = fileState(data) else { return false }
        do {
            let store = try Store(path: path, options: options)
            guard created.withLock({ $0.contains(store.id) }) else { return false }
            if !journaled, try store.read({ try $0.lastSequence() }) != 0 { return false }
        } catch {
            return false
        }
        // LMDB holds a shared lock on the lock file's first byte while it has the environment
        // open: taking it exclusively proves no other process does (and holds off new openers).
        let descriptor = open(lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var range = flock()
        range.l_type = Int16(F_WRLCK)
        range.l_whence = Int16(SEEK_SET)
        range.l_start = 0
        range.l_len = 1
        guard fcntl(descriptor, F_SETLK, &range) == 0, fileState(data) == before else { return false }
        unlink(data)
        if !keepingLockFile { unlink(lock) }
        return true
    }

    /// The size and modification time of `file`, to tell whether it was written meanwhile.
    private static func fileState(_ file: String) -> [Int]? {
        var status = stat()
        guard lstat(file, &status) == 0 else { return nil }
        return [Int(status.st_size), Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec), Int(status.st_ino)]
    }
}

/// The hidden directory a store is built in: made owner-only inside the store's directory and
/// locked (`flock`) until removed, so that no other creation takes it for a leftover.
private struct BuildingDirectory {
    let path: String
    private let descriptor: Int32

    init(in directory: String) throws(StoreError) {
        for _ in 0..<8 {
            let path = (directory as NSString).appendingPathComponent(StoreCreation.prefix + UUID().uuidString)
            guard mkdir(path, 0o700) == 0 else {
                let failure = errno
                let code: StoreError.Code = failure == EACCES || failure == EPERM ? .permissionDenied
                    : failure == EROFS ? .readOnly : FileWriting.isNoSpace(failure) ? .noSpace : .storage
                throw StoreError(code, "cannot create the store: \(String(cString: strerror(failure)))", path: directory)
            }
            let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if descriptor >= 0 && flock(descriptor, LOCK_EX) == 0 {
                // Another creation may have taken it for a leftover between mkdir and flock.
                var opened = stat(), named = stat()
                if fstat(descriptor, &opened) == 0, lstat(path, &named) == 0, opened.st_ino == named.st_ino {
                    self.path = path
                    self.descriptor = descriptor
                    return
                }
            }
            if descriptor >= 0 { close(descriptor) }
        }
        throw StoreError(.storage, "cannot create the store: its building directory kept disappearing", path: directory)
    }

    /// Removes the directory and what is in it, then unlocks it.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
        close(descriptor)
    }
}
