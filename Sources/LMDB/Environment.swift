import CLMDB
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An LMDB environment: one directory holding `data.mdb` and `lock.mdb`, with named databases.
///
/// Transactions are synchronous closures. A read sees a consistent snapshot; many run at once, on
/// any thread (the environment is opened with `MDB_NOTLS`). Writes in this process are serialised
/// behind one lock, and LMDB serialises writers across processes.
///
/// ```swift
/// let env = try Environment.open(path: "/tmp/store", options: .init(mapSize: 1 << 20))
/// let db = try env.openDatabase("records")
/// try env.write { txn in try txn.put(Array("k".utf8), Array("v".utf8), in: db) }
/// let v = try env.read { txn in try txn.value(forKey: Array("k".utf8), in: db) }
/// ```
///
/// When a write fills the map (`MDB_MAP_FULL`, at a put or at commit), the environment aborts the
/// transaction, grows the map once no transaction of this process is open, and runs the closure
/// again: **a write closure may run more than once**, so keep its side effects inside the
/// transaction. A map grown by another process (`MDB_MAP_RESIZED`) is adopted. Callers see neither.
public final class Environment: Sendable {
    /// Settings for opening an environment.
    public struct Options: Sendable {
        /// The initial map size in bytes; the map grows by doubling when it fills.
        public var mapSize: Int
        /// The map never grows past this size; a write that needs more fails with `MDB_MAP_FULL`.
        public var maxMapSize: Int
        /// The most named databases the environment can hold.
        public var maxDatabases: UInt32
        /// The most read transactions open at once, across processes.
        public var maxReaders: UInt32
        /// Open read-only: writes fail, nothing is created.
        public var readOnly: Bool
        /// Commit durability; see ``Durability``.
        public var durability: Durability
        /// Permissions of the files LMDB creates (`0o600` by default: owner only).
        public var fileMode: UInt32
        /// How often a ``Durability/periodicSync`` environment syncs when this process committed
        /// since its last sync (default 1 s; at least 1 ms). Other durabilities ignore it.
        public var syncInterval: Duration

        public init(
            mapSize: Int = 64 << 20,
            maxMapSize: Int = 1 << 40,
            maxDatabases: UInt32 = 16,
            maxReaders: UInt32 = 126,
            readOnly: Bool = false,
            durability: Durability = .full,
            fileMode: UInt32 = 0o600,
            syncInterval: Duration = .seconds(1)
        ) {
            self.mapSize = mapSize
            self.maxMapSize = maxMapSize
            self.maxDatabases = maxDatabases
            self.maxReaders = maxReaders
            self.readOnly = readOnly
            self.durability = durability
            self.fileMode = fileMode
            self.syncInterval = syncInterval
        }
    }

    nonisolated(unsafe) let handle: OpaquePointer
    /// The options the environment was opened with.
    public let options: Options
    /// Stale reader slots cleared when the environment was opened (left by crashed processes).
    public let staleReadersCleared: Int
    let writeLock = LockedState(())
    /// The thread that holds the write lock (0 when none), to refuse a write nested in a write.
    let writerThread = Atomic<UInt>(0)
    private let gate = ResizeGate()
    /// The writers waiting to be committed together (see `write(_: GroupedWrite)`).
    package let commitQueue = CommitQueue()
    private let mapSize: Atomic<Int>
    /// Top-level write commits attempted by this process (see ``beginRead()``).
    private let commitsAttempted = Atomic<UInt64>(0)
    /// The syncs made and the last commit one covered (`Environment+Syncs.swift`).
    package let syncState = SyncState()
    /// The background sync of ``Durability/periodicSync`` (set once, in `init`).
    nonisolated(unsafe) private var periodicSync: (any DispatchSourceTimer)?
    /// The files as opened, and which one was found replaced (1 + its index; 0: none).
    let openedFiles: OpenedFiles
    let replacedFile = Atomic<Int>(0)

    /// The environment in the existing directory `path`: the one this process already has open
    /// there, or a newly opened one (LMDB forbids opening one environment twice in a process).
    /// When it is already open, its map sizes are those of the first opening.
    /// - Throws: ``LMDBError`` as ``init(path:options:)``, and `EBUSY` when the directory is already
    ///   open in this process read-only while `options` asks for writing, or with another durability.
    public static func open(path: String, options: Options = Options()) throws(LMDBError) -> Environment {
        let environment = try EnvironmentRegistry.environment(for: path) { () throws(LMDBError) in
            try Environment(path: path, options: options)
        }
        if environment.options.readOnly && !options.readOnly {
            throw LMDBError(code: EBUSY, operation: "mdb_env_open (already open read-only in this process)")
        }
        if environment.options.durability != options.durability {
            throw LMDBError(
                code: EBUSY,
                operation: "mdb_env_open (already open in this process with durability \(environment.options.durability.rawValue), not \(options.durability.rawValue))")
        }
        return environment
    }

    /// Opens a new handle on the environment in the existing directory `path`, without sharing.
    /// Use ``open(path:options:)``: a second handle on an environment already open in this process
    /// breaks LMDB's locking. (Tests use this to play another process.)
    /// - Throws: ``LMDBError`` from `mdb_env_open` (`ENOENT` for a missing directory, `MDB_INVALID`
    ///   for a file that is not an LMDB environment, `MDB_VERSION_MISMATCH`, `EACCES`, …).
    init(path: String, options: Options = Options()) throws(LMDBError) {
        var env: OpaquePointer?
        try LMDBError.check(mdb_env_create(&env), "mdb_env_create")
        guard let env else { throw LMDBError(code: ENOMEM, operation: "mdb_env_create") }
        mdb_env_set_assert(env, LMDBAssertion.callback)
        do {
            try LMDBError.check(mdb_env_set_maxdbs(env, MDB_dbi(options.maxDatabases)), "mdb_env_set_maxdbs")
            try LMDBError.check(mdb_env_set_maxreaders(env, options.maxReaders), "mdb_env_set_maxreaders")
            try LMDBError.check(mdb_env_set_mapsize(env, options.mapSize), "mdb_env_set_mapsize")
            var flags = UInt32(MDB_NOTLS) | options.durability.flags
            if options.readOnly { flags |= UInt32(MDB_RDONLY) }
            try MetaPages.checkBeforeOpening(dataFile: path + "/data.mdb")
            try LMDBError.check(mdb_env_open(env, path, flags, mode_t(options.fileMode)), "mdb_env_open")
            var dead: Int32 = 0
            try LMDBError.check(mdb_reader_check(env, &dead), "mdb_reader_check")
            staleReadersCleared = Int(dead)
            try Self.adoptRecordedMapSize(env)
        } catch {
            mdb_env_close(env)
            throw error
        }
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        self.handle = env
        self.options = options
        self.openedFiles = OpenedFiles(directory: path, handle: env)
        self.mapSize = Atomic(info.me_mapsize)
        if options.durability == .periodicSync && !options.readOnly { periodicSync = startPeriodicSync() }
    }

    /// Adopts the map size recorded in the file when it is larger than the one just opened with.
    /// LMDB opens a map smaller than the recorded one (another process grew it) at the size of the
    /// pages in use, so the first write would have to grow it again and `stat` would show it full.
    private static func adoptRecordedMapSize(_ env: OpaquePointer) throws(LMDBError) {
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        let opened = info.me_mapsize
        try LMDBError.check(mdb_env_set_mapsize(env, 0), "mdb_env_set_mapsize")   // 0: the recorded size
        mdb_env_info(env, &info)
        if info.me_mapsize < opened {
            try LMDBError.check(mdb_env_set_mapsize(env, opened), "mdb_env_set_mapsize")
        }
    }

    /// Set by the registry for shared environments.
    nonisolated(unsafe) var registryID: EnvironmentRegistry.DirectoryID?

    deinit {
        periodicSync?.cancel()
        syncBeforeClosing()
        EnvironmentRegistry.close(handle, id: registryID)
        openedFiles.closeDirectory()
    }

    /// The current map size in bytes.
    public var currentMapSize: Int { mapSize.load(ordering: .relaxed) }

    /// The largest key LMDB accepts, in bytes.
    public var maxKeySize: Int { Int(mdb_env_get_maxkeysize(handle)) }

    /// Flushes buffers to disk: every commit that returned before the call is durable when it
    /// returns. Needed only with the relaxed durabilities (``Durability``); `force` false does
    /// nothing for them (LMDB syncs then only when the environment syncs at commit).
    /// - Throws: `LMDBError` when the sync fails, or when a background sync of
    ///   ``Durability/periodicSync`` failed since the last call: the commits it was to make durable
    ///   may be lost (Linux reports a failed writeback once, so no later sync would say so).
    public func sync(force: Bool = true) throws(LMDBError) {
        // A background sync that failed lost pages that no later sync can bring back.
        if let failure = syncState.takeFailure() { throw failure }
        try syncFile(force: force)
        syncState.count(\.requested)
    }

    /// Top-level write commits attempted by this process so far.
    package var commitsMade: UInt64 { commitsAttempted.load(ordering: .acquiring) }

    /// Environment statistics and information.
    public func info() -> (mapSize: Int, lastPage: Int, lastTransaction: Int, maxReaders: Int, readers: Int, pageSize: Int) {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        var stat = MDB_stat()
        mdb_env_stat(handle, &stat)
        return (info.me_mapsize, info.me_last_pgno, info.me_last_txnid, Int(info.me_maxreaders),
                Int(info.me_numreaders), Int(stat.ms_psize))
    }

    /// Opens a named database, creating it (in a write transaction) when `create` is true.
    /// - Throws: `MDB_NOTFOUND` when it does not exist and `create` is false.
    public func openDatabase(_ name: String, create: Bool = true) throws -> Database {
        if create && !options.readOnly {
            return try write { txn in try txn.openDatabase(name, create: true) }
        }
        return try read { txn in try txn.openDatabase(name, create: false) }
    }

    // MARK: Transactions

    /// Runs `body` in a read-only transaction: a consistent snapshot of the environment.
    ///
    /// The transaction and every buffer it hands out are valid only during `body`. Keep read
    /// transactions short: while one is open, LMDB cannot reuse pages freed after it began.
    public func read<T>(_ body: (Transaction) throws -> T) throws -> T {
        gate.enter()
        var inGate = true
        defer { if inGate { gate.leave() } }
        var txn = try beginRead()
        if txn == nil {
            gate.leave()
            inGate = false
            try adoptMapSizeForReader()
            gate.enter()
            inGate = true
            txn = try beginRead()
        }
        guard let txn else { throw LMDBError(code: MDB_MAP_RESIZED, operation: "mdb_txn_begin") }
        let transaction = Transaction(txn, readOnly: true)
        let result: T
        do {
            result = try body(transaction)
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
        // Committing (rather than aborting) keeps database handles opened in this transaction.
        try LMDBError.check(mdb_txn_commit(txn), "mdb_txn_commit")
        return result
    }

    /// Runs `body` in a write transaction, committed when `body` returns and aborted when it throws.
    ///
    /// Writers in this process take turns; a write waits for the one before it. The closure may run
    /// again after the map grows (see the type's discussion). A write cannot start inside another
    /// transaction on the same thread — a write, or a ``read(_:)`` — and fails with `EDEADLK`:
    /// waiting there could wait for itself (for the write lock, or for the read to end before the
    /// map can grow). Reads inside a write are fine.
    public func write<T>(_ body: (Transaction) throws -> T) throws -> T {
        try write(body, didCommit: {})
    }

    /// ``write(_:)``, then `didCommit` once the final run of `body` has committed, while this
    /// thread still holds the write lock: what it does is ordered like the commits themselves
    /// (the store queues change notifications there). It does not run when the write fails.
    /// `unlocked` runs once the write lock is released (or the write was refused) and before
    /// the commit is made durable (``Durability/full``: ``syncCommitted(since:)``), so that the caller
    /// can let the next write start meanwhile.
    package func write<T>(
        _ body: (Transaction) throws -> T, didCommit: () -> Void, unlocked: () -> Void = {}
    ) throws -> T {
        var isUnlocked = false
        defer { if !isUnlocked { unlocked() } }
        try checkWriteAllowed()
        var unsynced: UnsyncedCommit?
        let result = try writeLock.withLock { _ in
            writerThread.store(currentThreadID(), ordering: .relaxed)
            defer { writerThread.store(0, ordering: .relaxed) }
            while true {
                let txn = try beginWrite()
                let transaction = Transaction(txn, readOnly: false)
                let result: T
                do {
                    result = try body(transaction)
                } catch {
                    mdb_txn_abort(txn)
                    if transaction.sawMapFull, try growMap() { continue }
                    throw error
                }
                if transaction.sawMapFull {
                    mdb_txn_abort(txn)
                    if try growMap() { continue }
                    throw LMDBError(code: MDB_MAP_FULL, operation: "mdb_put")
                }
                let commit = commitWrite(txn)
                if commit.code == MDB_MAP_FULL, try growMap() { continue }
                try LMDBError.check(commit.code, "mdb_txn_commit")
                didCommit()
                unsynced = try settle(commit.commit)
                return result
            }
        }
        isUnlocked = true
        unlocked()
        if let unsynced { try syncCommitted(since: unsynced) }
        return result
    }

    /// Throws what ``write(_:)`` throws before it waits for its turn: `EACCES` on a read-only
    /// environment, and `EDEADLK` when the calling thread is inside a write or a read of this
    /// environment (the write could only wait for itself).
    package func checkWriteAllowed() throws(LMDBError) {
        if options.readOnly { throw LMDBError(code: EACCES, operation: "write transaction on a read-only store") }
        if writerThread.load(ordering: .relaxed) == currentThreadID() {
            throw LMDBError(code: EDEADLK, operation: "write transaction started inside another write on the same thread")
        }
        if gate.threadReadDepth > 0 {
            throw LMDBError(code: EDEADLK, operation: "write transaction started inside a read transaction on the same thread")
        }
    }

    /// Begins a read-only transaction on the snapshot its id names.
    /// - Returns: nil on `MDB_MAP_RESIZED` (another process grew the map).
    ///
    /// LMDB takes a reader's snapshot by loading the last committed transaction id N and then
    /// copying meta page N & 1, unchecked. When the reader is preempted in between, the two
    /// commits that follow can complete, and N + 2 rewrites that meta page: the reader then runs
    /// on snapshot N + 2, or on a half-written meta page, while its id says N, and its next
    /// transaction may read N + 1, older than what it already saw. (On a loaded machine readers
    /// found a counter going from 13 back to 12.) Two checks after the begin retry it:
    /// - commits of this process count `commitsAttempted` after `mdb_txn_commit` returns, before
    ///   the next write can start: a count that moved during the begin may have rewritten the page;
    /// - the newest meta page naming N + 2 or later means the page was rewritten (by any process).
    ///
    /// What remains is another process's commit whose meta write is under way, its new id not yet
    /// written, at the very moment of the copy and of the check.
    @inline(__always)
    private func beginRead() throws(LMDBError) -> OpaquePointer? {
        while true {
            let before = commitsAttempted.load(ordering: .acquiring)
            var txn: OpaquePointer?
            let rc = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &txn)
            if rc == MDB_MAP_RESIZED { return nil }
            try LMDBError.check(rc, "mdb_txn_begin")
            // The meta page was copied before the checks read anything.
            atomicMemoryFence(ordering: .acquiring)
            var info = MDB_envinfo()
            mdb_env_info(handle, &info)
            if commitsAttempted.load(ordering: .relaxed) == before, info.me_last_txnid < mdb_txn_id(txn) + 2 {
                return txn
            }
            mdb_txn_abort(txn)
        }
    }

    /// Commits the top-level write transaction `txn` (with the write lock held) and counts the
    /// commit for ``beginRead()``, before the write lock lets the next write rewrite a meta page.
    /// A commit failing with an I/O error (its `fdatasync` may have taken the writeback error of
    /// an earlier commit's meta page) is counted against the commits not synced yet
    /// (``syncCommitted(since:)``).
    /// - Returns: `mdb_txn_commit`'s result, and the commit for ``syncCommitted(since:)``.
    @inline(__always)
    func commitWrite(_ txn: OpaquePointer) -> (code: Int32, commit: UnsyncedCommit) {
        let result = syncState.committing { mdb_txn_commit(txn) }
        commitsAttempted.add(1, ordering: .releasing)
        return result
    }

    /// Begins a write transaction (with the write lock held), adopting first a map size another
    /// process set.
    @inline(__always)
    func beginWrite() throws(LMDBError) -> OpaquePointer {
        while true {
            var txn: OpaquePointer?
            let rc = mdb_txn_begin(handle, nil, 0, &txn)
            if rc == MDB_MAP_RESIZED {
                try resize(to: 0)
                continue
            }
            try LMDBError.check(rc, "mdb_txn_begin")
            do { try checkFilesUnchanged() } catch {
                mdb_txn_abort(txn)
                throw error
            }
            return txn!
        }
    }

    func currentThreadID() -> UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    /// Doubles the map (up to `maxMapSize`), or clears stale reader slots instead when there are
    /// some. Called with the write lock held and no write open.
    /// - Returns: whether the map grew (or readers were cleared), so that the write can run again.
    func growMap() throws(LMDBError) -> Bool {
        // A reader killed in its transaction pins the pages freed since: clear it and run the write
        // again, reusing them, before growing the file for nothing.
        if try clearStaleReaders() > 0 { return true }
        let current = currentMapSize
        guard current < options.maxMapSize else { return false }
        try resize(to: min(max(current * 2, current + (1 << 20)), options.maxMapSize))
        return true
    }

    /// Adopts, for a reader, the map size another process set (`MDB_MAP_RESIZED`): under the write
    /// lock, so that no write is open and no other resize runs.
    private func adoptMapSizeForReader() throws(LMDBError) {
        if gate.threadReadDepth > 0 || writerThread.load(ordering: .relaxed) == currentThreadID() {
            throw LMDBError(
                code: MDB_MAP_RESIZED,
                operation: "mdb_txn_begin (another process grew the map while this thread holds a transaction)")
        }
        try writeLock.withLock { (_) throws(LMDBError) in try resize(to: 0) }
    }

    /// Sets the map size (0: adopt the size in the file) once no read of this process is open.
    /// Called with the write lock held and no write open, so resizes never overlap.
    private func resize(to size: Int) throws(LMDBError) {
        var rc: Int32 = 0
        let ran = gate.exclusively {
            rc = mdb_env_set_mapsize(handle, size)
            var info = MDB_envinfo()
            mdb_env_info(handle, &info)
            mapSize.store(info.me_mapsize, ordering: .relaxed)
        }
        guard ran else {
            throw LMDBError(code: size == 0 ? MDB_MAP_RESIZED : MDB_MAP_FULL,
                            operation: "mdb_env_set_mapsize (this thread holds a read transaction)")
        }
        try LMDBError.check(rc, "mdb_env_set_mapsize")
    }

    /// Runs `copy` (an `mdb_env_copy*` call, which reads one snapshot in a read transaction of its
    /// own) as a reader of this process: the map does not grow under it, and a map grown by another
    /// process is adopted first.
    func copying(_ operation: String, _ copy: () -> Int32) throws(LMDBError) {
        gate.enter()
        var rc = copy()
        gate.leave()
        if rc == MDB_MAP_RESIZED {
            try adoptMapSizeForReader()
            gate.enter()
            rc = copy()
            gate.leave()
        }
        try LMDBError.check(rc, operation)
    }
}
