import Foundation
import LMDB

/// Finds, checks or creates the store at a path: the rules for what a path may hold.
enum StoreOpening {
    struct Opened {
        let environment: Environment
        let databases: StoreDatabases
        let id: UUID
    }

    static func open(path: String, options: Store.Options) throws(StoreError) -> Opened {
        let canCreate = options.createIfMissing && !options.readOnly
        try prepareDirectory(path, canCreate: canCreate, fileMode: options.fileMode)
        var dataFileSize = try StoreFiles.checkRegular(in: path)
        if dataFileSize == nil && canCreate {
            // Built beside and linked in whole (see StoreCreation): data.mdb is never half made.
            try StoreCreation.create(in: path, options: options)
            dataFileSize = try StoreFiles.checkRegular(in: path)
        }
        guard let size = dataFileSize else {
            throw StoreError(.notAStore, "not a kvstore store (no data.mdb in the directory)", path: path)
        }
        // LMDB would make an empty data file a new environment; no creation leaves one (see
        // StoreCreation), so it is damage, refused even when creating.
        if size == 0 { throw StoreError(.notAStore, "not a kvstore store (data.mdb is empty)", path: path) }
        try StoreFiles.allocateLockFile(in: path, maxReaders: Int(Environment.Options().maxReaders), fileMode: options.fileMode)
        let environment: Environment
        do {
            environment = try Environment.open(path: path, options: .init(
                mapSize: options.mapSize, maxMapSize: options.maxMapSize, maxDatabases: 16,
                readOnly: options.readOnly, durability: options.durability, fileMode: options.fileMode,
                syncInterval: options.syncInterval))
        } catch {
            throw describe(error, path: path)
        }
        try StoreFiles.checkSize(of: environment, path: path)
        try StoreFiles.checkPages(of: environment, path: path, forWriting: !options.readOnly)
        do {
            if options.readOnly {
                return try openExisting(environment, path: path)
            }
            return try environment.write { txn in try initialize(environment, txn, path: path) }
        } catch let error as StoreError {
            throw error
        } catch let error as LMDBError {
            throw describe(error, path: path)
        } catch {
            throw StoreError(.storage, "\(error)", path: path)
        }
    }

    private static func prepareDirectory(_ path: String, canCreate: Bool, fileMode: UInt32) throws(StoreError) {
        try StorePath.refuseDanglingLink(path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if !isDirectory.boolValue {
                throw StoreError(.notADirectory, "is a file, not a store directory", path: path)
            }
            return
        }
        guard canCreate else { throw StoreError(.noStore, "no store here (the directory does not exist)", path: path) }
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true,
                attributes: [.posixPermissions: StoreFiles.directoryMode(for: fileMode)])
        } catch {
            // Another creator may have made it meanwhile.
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return }
            throw StoreError(.permissionDenied, "cannot create the store directory: \(error.localizedDescription)", path: path)
        }
    }

    private static func describe(_ error: LMDBError, path: String) -> StoreError {
        switch error.code {
        case MDB_INVALID_CODE:
            StoreError(.notAStore, "not a kvstore store (data.mdb is not an LMDB file)", path: path, underlying: error)
        case MDB_VERSION_MISMATCH_CODE:
            StoreError(.newerFormat, "the store was written by an incompatible LMDB version", path: path, underlying: error)
        case EACCES, EPERM:
            StoreError(.permissionDenied, "permission denied opening the store's files", path: path, underlying: error)
        case EBUSY:
            StoreError(.alreadyOpen, "the store is already open in this process with other settings: \(error.operation)",
                       path: path, underlying: error)
        case EROFS:
            StoreError(.readOnly, "the store is on a read-only file system; open it read-only", path: path, underlying: error)
        case ENOENT:
            StoreError(.noStore, "no store here", path: path, underlying: error)
        default:
            StoreError.storage(error, path: path)
        }
    }

    private static func openExisting(_ environment: Environment, path: String) throws -> Opened {
        try environment.read { txn in
            guard try exists(StoreLayout.meta, in: txn) else {
                throw StoreError(.notAStore, "not a kvstore store (an LMDB environment without kvstore metadata)", path: path)
            }
            let meta = try txn.openDatabase(StoreLayout.meta, create: false)
            let id = try checkMeta(txn, meta, path: path)
            let databases = StoreDatabases(
                records: try txn.openDatabase(StoreLayout.records, create: false),
                journal: try txn.openDatabase(StoreLayout.journal, create: false),
                meta: meta,
                indexes: try exists(StoreLayout.indexes, in: txn) ? txn.openDatabase(StoreLayout.indexes, create: false) : nil,
                sync: try exists(StoreLayout.sync, in: txn) ? txn.openDatabase(StoreLayout.sync, create: false) : nil)
            return Opened(environment: environment, databases: databases, id: id)
        }
    }

    /// Opens the store's databases for writing.
    private static func initialize(_ environment: Environment, _ txn: LMDB.Transaction, path: String) throws -> Opened {
        guard try exists(StoreLayout.meta, in: txn) else {
            throw StoreError(.notAStore, "not a kvstore store (an LMDB environment without kvstore metadata)", path: path)
        }
        let databases = StoreDatabases(
            records: try txn.openDatabase(StoreLayout.records, create: true),
            journal: try txn.openDatabase(StoreLayout.journal, create: true),
            meta: try txn.openDatabase(StoreLayout.meta, create: true),
            indexes: try txn.openDatabase(StoreLayout.indexes, create: true),
            sync: try txn.openDatabase(StoreLayout.sync, create: true))
        return Opened(environment: environment, databases: databases, id: try checkMeta(txn, databases.meta, path: path))
    }

    private static func exists(_ name: String, in txn: LMDB.Transaction) throws(LMDBError) -> Bool {
        do {
            _ = try txn.openDatabase(name, create: false)
            return true
        } catch {
            if error.code == LMDBError.notFound.code { return false }
            throw error
        }
    }

    private static func checkMeta(_ txn: LMDB.Transaction, _ meta: Database, path: String) throws -> UUID {
        guard let format = try txn.withValue(forKey: StoreLayout.MetaKey.format, in: meta, StoreLayout.uint32(from:)) else {
            throw StoreError(.notAStore, "not a kvstore store (no format version in its metadata)", path: path)
        }
        if format > StoreLayout.newestFormatVersion {
            throw StoreError(
                .newerFormat,
                "the store has format \(format), newer than this kvstore reads (\(StoreLayout.newestFormatVersion)); use a newer kvstore",
                path: path)
        }
        guard let b = try txn.value(forKey: StoreLayout.MetaKey.storeID, in: meta), b.count == 16 else {
            throw StoreError(.corrupt, "the store's metadata has no valid store id", path: path)
        }
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}

private let MDB_INVALID_CODE = LMDBError.invalid.code
private let MDB_VERSION_MISMATCH_CODE = LMDBError.versionMismatch.code
