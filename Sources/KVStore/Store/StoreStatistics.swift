import Foundation
import LMDB

/// What `kvstore stat` reports about a store: identity, sizes, page use, readers, records per
/// kind, the journal's range, durable consumers and replication checkpoints. The records' counts,
/// the journal's range, the consumers and the checkpoints are read in one snapshot; the file size,
/// the environment's figures and the readers just before it.
///
/// ```swift
/// let stats = try store.statistics()
/// print(stats.kinds)                          // [(kind: "invoice", count: 3), (kind: "person", count: 2)]
/// print(stats.journal.last, stats.fileSize)   // 12 65536
/// ```
public struct StoreStatistics: Sendable {
    /// Entry and page counts of one named database (`mdb_stat`).
    public typealias DatabaseStatistics = LMDB.DatabaseStatistics
    /// Map size, page size, pages used and reader slots of the environment (`mdb_env_info`).
    public typealias EnvironmentStatistics = LMDB.Environment.Statistics

    /// The journal's range.
    public struct JournalRange: Sendable, Hashable {
        /// The oldest sequence still held, nil when the journal is empty.
        public var first: UInt64?
        /// The newest sequence ever written (0 when nothing was journaled); it stays after truncation.
        public var last: UInt64
        /// The entries held.
        public var entries: Int
        /// The commit id of the last commit that journaled something (0 when none).
        public var lastCommit: UInt64
    }

    /// The store's directory.
    public var path: String
    /// The store's unique id.
    public var storeID: UUID
    /// The layout's format version.
    public var formatVersion: UInt32
    /// When the store was created, when recorded.
    public var created: Date?
    /// The durability this process opened the store with (a per-open choice; the store keeps none).
    public var durability: Durability
    /// The size of `data.mdb` in bytes.
    public var fileSize: Int
    /// The environment's map and readers.
    public var environment: EnvironmentStatistics
    /// The named databases `records`, `journal` and `meta`, by name.
    public var databases: [String: DatabaseStatistics]
    /// The lock table's readers in use, besides the one reading these statistics
    /// (LMDB's `mdb_reader_list`).
    public var readers: [String]
    /// The kinds that have records, with their counts, in name order.
    public var kinds: [(kind: String, count: Int)]
    /// The journal's range.
    public var journal: JournalRange
    /// The durable consumers, with their cursors and lag (see ``JournalConsumer``).
    public var consumers: [JournalConsumer.Status]
    /// The sources whose journals were applied here, each with the last sequence applied.
    public var replicationCheckpoints: [(source: UUID, sequence: UInt64)]
    /// Whether the store is a primary, a replica (refusing local writes) or a promoted replica.
    public var role: ReplicationRole
    /// The sources applied here, each with its checkpoint, the source's last known sequence and
    /// the lag (see ``ReadTransaction/replicationSources()``).
    public var replicationSources: [ReplicationSourceStatus]
}

extension Store {
    /// The store's statistics (see ``StoreStatistics`` for what is read in one snapshot).
    public func statistics() throws -> StoreStatistics {
        let dataFile = (path as NSString).appendingPathComponent("data.mdb")
        let fileSize = (try? FileManager.default.attributesOfItem(atPath: dataFile)[.size] as? Int) ?? 0
        // Taken before the snapshot, so this call's own reader is not counted.
        let environmentStatistics = environment.statistics(), readers = environment.readerList()
        return try read { txn in
            let meta = txn.transaction
            let created = try meta.uint64(forKey: StoreLayout.MetaKey.created, in: databases.meta)
                .map { Date(timeIntervalSince1970: Double(bitPattern: $0)) }
            var databaseStatistics: [String: StoreStatistics.DatabaseStatistics] = [:]
            for database in [databases.records, databases.journal, databases.meta] {
                databaseStatistics[database.name] = try meta.statistics(of: database)
            }
            return StoreStatistics(
                path: path, storeID: id,
                formatVersion: try meta.withValue(forKey: StoreLayout.MetaKey.format, in: databases.meta, StoreLayout.uint32(from:)) ?? 0,
                created: created, durability: options.durability, fileSize: fileSize,
                environment: environmentStatistics, databases: databaseStatistics,
                readers: readers, kinds: try txn.kinds(),
                journal: .init(
                    first: try txn.firstSequence(), last: try txn.lastSequence(),
                    entries: databaseStatistics[StoreLayout.journal]?.entries ?? 0,
                    lastCommit: try meta.uint64(forKey: StoreLayout.MetaKey.lastCommit, in: databases.meta) ?? 0),
                consumers: try txn.consumers(), replicationCheckpoints: try txn.replicationCheckpoints(),
                role: try txn.replicationRole(), replicationSources: try txn.replicationSources())
        }
    }
}
