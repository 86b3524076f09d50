import Foundation
import LMDB
// `Durability` is LMDB's type: re-exported, so that an app that imports KVStore alone can name
// it and its cases (`durability: Durability = .full` in its own signature).
@_exported import enum LMDB.Durability
import Synchronization

/// Commit durability of a store, chosen by each process when it opens the store
/// (``Store/Options/durability``; the store keeps none): LMDB's `Durability`.
///
/// - `.full` (the default): LMDB syncs the data pages and the meta page at every commit.
/// - `.noMetaSync`: one sync per commit (`MDB_NOMETASYNC`); an OS crash may undo the last
///   commit, never corrupts.
/// - `.periodicSync`: no sync per commit (`MDB_NOSYNC`); a background sync every
///   ``Store/Options/syncInterval`` (1 s) when something was committed, on ``Store/sync()`` and at
///   close. A killed process loses no returned commit; after an OS crash the store is as the last
///   sync left it when nothing was committed after it, else **it may be corrupt**.
/// - `.noSync`: no syncs (`MDB_NOSYNC`); survives process crashes only: after an OS crash or
///   power loss the store **may be corrupt**. ``Store/sync()`` makes what was committed durable.
///
/// See <doc:GroupCommitAndDurability>.
public typealias Durability = LMDB.Durability

/// An embedded object store: records grouped by kind, read and written through key-value coding,
/// with every change journaled in the same transaction as the data.
///
/// ```swift
/// let store = try Store(path: "/tmp/people")
/// let ada = try store.insert(["name": "Ada", "born": 1815], kind: "person")
/// try store.setValue("Ada Lovelace", forKey: "name", of: ada)
/// try store.value(forKey: "name", of: ada)          // "Ada Lovelace"
/// try store.write { txn in                          // one commit, one commit id
///     try txn.setValue(["city": "London"], forKey: "address", of: ada)
///     try txn.setValue("Marylebone", forKeyPath: "address.district", of: ada)
/// }
/// try store.journalEntries().count                  // 4: insert, name, address, address.district
/// ```
///
/// A store is `Sendable`: any number of threads and tasks read at once, each in a consistent
/// snapshot, while writes take turns. Transactions are synchronous closures: keep them short.
public final class Store: Sendable {
    /// Settings for opening a store.
    public struct Options: Sendable {
        /// Create the directory and the store when they do not exist (default true). The store
        /// is built whole beside its files and linked in (see <doc:StorageFormat>):
        /// an empty `data.mdb` or an LMDB environment without kvstore metadata is refused even
        /// when creating, and processes creating one store at once end up sharing one.
        public var createIfMissing: Bool = true
        /// Open read-only: every write fails with ``StoreError/Code/readOnly``.
        public var readOnly: Bool = false
        /// Commit durability (default `.full`; see ``Durability`` and <doc:GroupCommitAndDurability>).
        public var durability: Durability = .full
        /// How often a store opened with `.periodicSync` syncs in the background when
        /// this process committed since its last sync (default 1 s): after an OS crash, what
        /// was committed up to a completed sync survives unless commits followed it (see
        /// `.periodicSync`). Ignored by the other durabilities; the first opening of
        /// a store in a process sets it for every ``Store`` on the store in that process.
        public var syncInterval: Duration = .seconds(1)
        /// The initial LMDB map size; it grows by doubling when full, up to `maxMapSize`.
        public var mapSize: Int = 64 << 20
        /// The largest the LMDB map may grow to (default 1 TiB).
        public var maxMapSize: Int = 1 << 40
        /// Permissions of the store's files (default `0o600`, owner only).
        public var fileMode: UInt32 = 0o600
        /// Run the kind's validation on every set, as ``WriteTransaction/validatingSetValue(_:forKey:of:)``
        /// does (default false: like Foundation, plain sets do not validate).
        public var validatesOnSet: Bool = false
        /// Kinds to register on open, as ``Store/register(_:)`` does (more can be registered
        /// later): their declarations are stored in the store's catalog, in one write when any
        /// differs from the stored one. A store that takes no writes — opened read-only, or an
        /// unpromoted replica, whose catalog comes from its source — is not written: the stored
        /// declarations rule there, and these kinds add their closures only. A declaration the
        /// store's records break fails the open with ``StoreError/Code/kindRefused``.
        public var kinds: [Kind] = []
        /// Commit writes that wait for their turn together, in one LMDB transaction with one
        /// commit's syncs (group commit, default true; see ``Store/write(_:)-2jclw``). Turning it off makes every write
        /// commit on its own (for measurements).
        public var groupsCommits: Bool = true
        /// The wall clock this process's writes read: the journal's timestamps, and the physical
        /// time of the sync stamps (``HybridTime``). Tests set a clock ahead or behind.
        package var wallClock: @Sendable () -> Date = { Date() }

        /// The defaults: create when missing, read-write, full durability, owner-only files.
        public init() {}
    }

    /// The store's directory.
    public let path: String
    /// The store's unique id, made when it was created (replication uses it as the origin).
    public let id: UUID
    /// The options the store was opened with.
    public let options: Options
    let environment: Environment
    let databases: StoreDatabases
    private let kinds: LockedState<[String: Kind]>
    /// How many registrations of kinds this process made (the options' kinds count as one): none
    /// lets lookups skip the lock for schemaless stores; a new one tells a transaction that the
    /// rules it read before may have changed.
    private let registrations: Atomic<Int>
    /// Whether any kind was registered in this process (never false again once true).
    var hasRegisteredKinds: Bool { registrationCount > 0 }
    /// The number of registrations so far (``registrations``).
    var registrationCount: Int { registrations.load(ordering: .acquiring) }
    /// The in-process observers of this store's environment (shared by every `Store` on it).
    let observation: ObservationHub
    /// The decoded kind catalog of this store's environment (shared by every `Store` on it).
    let catalogs: KindCatalogCache
    /// The threads of async reads and writes (shared by every `Store` on the environment; held
    /// here, as `EnvironmentShared` holds it weakly).
    let threads: StoreThreads
    /// The clock's state as this process's last write left it (shared by every `Store` on it).
    let clocks: ClockCache

    /// Opens the store in directory `path`, creating it when `options.createIfMissing` allows.
    ///
    /// - Throws: ``StoreError``: ``StoreError/Code/noStore`` (nothing there and not creating),
    ///   ``StoreError/Code/notADirectory``, ``StoreError/Code/notAStore`` (a directory or LMDB
    ///   environment that is not a kvstore store), ``StoreError/Code/newerFormat``,
    ///   ``StoreError/Code/permissionDenied``, ``StoreError/Code/kindRefused`` (a kind of
    ///   ``Options/kinds`` that the store's records break).
    public init(path: String, options: Options = Options()) throws(StoreError) {
        let opened = try StoreOpening.open(path: path, options: options)
        self.path = path
        self.options = options
        self.environment = opened.environment
        self.databases = opened.databases
        self.id = opened.id
        self.kinds = LockedState(Dictionary(options.kinds.map { ($0.name, $0) }, uniquingKeysWith: { $1 }))
        self.registrations = Atomic(options.kinds.isEmpty ? 0 : 1)
        self.observation = ObservationHub.shared(for: opened.environment)
        self.catalogs = KindCatalogCache.shared(for: opened.environment)
        self.threads = StoreThreads.shared(for: opened.environment)
        self.clocks = ClockCache.shared(for: opened.environment)
        if !options.kinds.isEmpty { try declareOnOpening(options.kinds) }
    }

    /// Registers (or replaces) the rules of a kind: its declarative part — open or closed,
    /// declared keys and types, indexes, modification times, schema version — is stored in the
    /// store's kind catalog (``WriteTransaction/declare(_:)``, in a write of its own, skipped when
    /// the stored declaration is the same), where every process and the `kvstore` tool enforce it;
    /// its closures (hooks, validators, dependent keys) are registered in this process, on top of
    /// the stored declaration. Records of kinds nobody declared follow an open kind's defaults.
    /// See <doc:KindCatalog>. When the kind's ``Kind/indexes`` change, the same write builds the
    /// new ones over the existing records and drops the others (<doc:Indexes>).
    ///
    /// Register kinds before observing their records: an observation already running keeps the
    /// inputs it attached to (for example a derived key's ``Kind/keyPathsAffecting``) until its
    /// next change, when it re-attaches under the new rules.
    /// - Throws: ``KeyValueCodingError`` `undefinedKey` or `typeMismatch` naming the first record
    ///   and key that the new rules refuse, `uniqueViolation` when existing records repeat a new
    ///   unique index's values (nothing is stored or registered then);
    ///   ``StoreError/Code/readOnly`` or ``StoreError/Code/replica`` when the declaration differs
    ///   from the stored one and the store takes no writes.
    public func register(_ kind: Kind) throws {
        try register(kind, indexBuildProgress: nil)
    }

    /// ``register(_:)``, calling `progress` with the records an index build goes through.
    func register(_ kind: Kind, indexBuildProgress progress: ((Int) -> Void)?) throws {
        if try !isDeclared(kind) {
            try write { txn in
                txn.indexState.buildProgress = progress
                defer { txn.indexState.buildProgress = nil }
                try txn.declare(kind)
            }
        }
        kinds.withLock { $0[kind.name] = kind }
        registrations.wrappingAdd(1, ordering: .releasing)
    }

    /// The rules of `name` as registered in this process (``register(_:)``), or nil. Reads and
    /// writes follow the store's declaration of the kind (``ReadTransaction/declaredKind(named:)``),
    /// which another process may have changed since, with these closures on top.
    public func kind(named name: String) -> Kind? {
        guard hasRegisteredKinds else { return nil }
        return kinds.withLock { $0[name] }
    }

    /// Runs `body` in a read transaction: a consistent snapshot of the store.
    ///
    /// The transaction is valid only during `body`.
    public func read<T>(_ body: (ReadTransaction) throws -> T) throws -> T {
        do {
            return try environment.read { txn in try body(ReadTransaction(store: self, transaction: txn)) }
        } catch let error as LMDBError {
            throw StoreError.storage(error, path: path)
        }
    }

    /// Runs `body` in a write transaction: everything it changes commits together when it returns,
    /// with one commit id shared by all its journal entries, or nothing changes when it throws.
    ///
    /// Writes take turns. `body` may run more than once when the store must grow its map; keep
    /// side effects other than the store's inside the transaction's result. A write started inside
    /// another ``read(_:)-2zm6d`` or ``write(_:)-2jclw`` on the same thread fails with
    /// ``StoreError/Code/nestedWrite`` (it could only wait for itself).
    ///
    /// Observers of the changes (``observe(_:keyPath:options:_:)``) are notified after the commit,
    /// in commit order, before `write` returns: on this thread, or on another writing thread that
    /// is delivering notifications at the time (`write` then waits until they ran). A `write` made
    /// from inside an observer's callback returns at once; its notifications follow the current one.
    ///
    /// **Group commit.** Writes that arrive while another write is under way wait, and then commit
    /// together: the first of them runs every waiting write's `body`, each in a nested LMDB
    /// transaction of its own, inside one LMDB write transaction, and commits that once — one
    /// commit's syncs for the whole group, which is what lets concurrent writers go faster than one
    /// durable commit at a time. Under `.full` the group's second sync (LMDB's meta
    /// page) runs after the next group may start, and its writes return once it is done. Each write still is a commit of its own: its own commit id (ids increase in the
    /// order the group ran its writes, and each write's journal entries are contiguous), its own
    /// observer notifications (delivered in that order, as above), and its own outcome: a `body`
    /// that throws drops only its own changes and `write` rethrows its error, while the others
    /// commit; if the group's commit fails, every write in it fails with that error. `write`
    /// returns only once its changes committed, at the store's ``Options/durability``. The
    /// group's `body`s run on the thread that leads it while the others wait: do not rely on
    /// thread-local or task-local state inside `body`, and keep it short (the group waits for
    /// each). A caller isolated to an actor (the main actor too) waits while its `body` may run
    /// on another thread. Do not wait inside `body` for another thread's write to return or to
    /// notify: that write may be in the same group, waiting for `body`. A write started inside a
    /// grouped `body` fails with ``StoreError/Code/nestedWrite``, as on its own thread. A write that finds no write under way runs alone, exactly as without grouping. When
    /// the map fills, the whole group runs again. ``Options/groupsCommits`` turns grouping off.
    ///
    /// ```swift
    /// // Eight threads, each committing small durable writes: they share syncs.
    /// let counters = try (0..<8).map { _ in try store.insert(["n": 0], kind: "counter") }
    /// DispatchQueue.concurrentPerform(iterations: 8) { i in
    ///     try! store.write { txn in try txn.setValue(.int(Int64(i)), forKey: "n", of: counters[i]) }
    /// }
    /// ```
    public func write<T>(_ body: (WriteTransaction) throws -> T) throws -> T {
        if options.readOnly {
            throw StoreError(.readOnly, "the store is open read-only", path: path)
        }
        let queue = options.groupsCommits ? environment.commitQueue : nil
        if let queue, !queue.claimIfFree() { return try writeInGroup(body) }
        var batch: ObservationBatch?
        var ticket: UInt64?
        var priorsSent = 0
        var clock: ClockCache.Entry?
        let result: T
        do {
            // Hand the turn on once the write lock is released — before the commit's sync and
            // before delivering: the next write commits meanwhile, and a callback's write may be
            // waiting for its turn.
            result = try environment.write({ txn in
                let transaction = WriteTransaction(store: self, transaction: txn)
                transaction.priorsSentBefore = priorsSent
                defer { priorsSent = max(priorsSent, transaction.priorsSent) }
                let result = try body(transaction)
                try transaction.finish()
                clock = transaction.clockAfterCommit
                batch = observation.batch(for: transaction)  // nil, at the cost of one atomic load, when unobserved
                return result
            }, didCommit: {
                if let clock { clocks.committed(clock) }
                if let batch { ticket = observation.committed(batch) }
            }, unlocked: { queue?.release() })
        } catch let error as LMDBError {
            throw writeError(error)
        }
        if let ticket { observation.deliver(through: ticket) }
        return result
    }

    /// The store's error for a failed LMDB write.
    func writeError(_ error: LMDBError) -> StoreError {
        if error.code == EDEADLK {
            return StoreError(
                .nestedWrite,
                "a write was started inside another transaction on the same thread; use the write transaction you were given, or write after the read",
                path: path, underlying: error)
        }
        if error.code == EACCES {
            return StoreError(.readOnly, "the store's files may not be written", path: path, underlying: error)
        }
        return StoreError.storage(error, path: path)
    }

    /// Flushes to disk: every commit that returned before the call is durable when it returns
    /// (one `fdatasync` of the data file). Needed only with a relaxed ``Durability``: with
    /// `.periodicSync` it is the on-demand sync; with `.noSync` the only one.
    public func sync() throws(StoreError) {
        do { try environment.sync() } catch { throw StoreError.storage(error, path: path) }
    }
}
