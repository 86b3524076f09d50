import CRawLMDB
import Foundation
import KVStore

/// The insert pool as kvstore encodes it: what the raw baseline puts, byte for byte.
struct EncodedPool {
    /// Dataset indexes of the pool's records, in insertion order.
    let indexes: [Int]
    /// kvstore's stored bytes of each pool record.
    let recordBytes: [[UInt8]]
    /// The size of kvstore's journal entry for inserting each pool record.
    let insertEntrySizes: [Int]
    /// kvstore's journal entry for one int set of the set key.
    let setEntry: [UInt8]
}

/// Facts about the prepared data, reported with the results.
struct DataFacts: Codable {
    let records: Int
    let averageRecordBytes: Double
    let averageInsertEntryBytes: Double
    let setEntryBytes: Int
    let directory: String
}

/// Builds each engine's data once, each in its own fresh directory under `root`:
/// 1. `encode/`: a scratch kvstore store that inserts the insert pool and sets one value, to learn
///    the exact bytes and journal-entry sizes kvstore writes for them (then it is deleted);
/// 2. `kvstore/`: the base records inserted through kvstore, `batch` per transaction;
/// 3. `lmdb/`: a raw LMDB environment holding a copy of kvstore's `records` and `journal`
///    databases, read out with the C API and put in the same order and transaction sizes;
/// 4. `grdb/`: a GRDB `DatabasePool` holding the same records as JSON rows (``GRDBEngine``).
enum Preparation {
    static func prepare(_ config: Configuration, root: String, log: (String) -> Void) throws -> (engines: Engines, facts: DataFacts) {
        log("encoding the insert pool (\(config.insertPoolSize) records) in a scratch store")
        let pool = try encodePool(config, path: root + "/encode")
        try FileManager.default.removeItem(atPath: root + "/encode")

        let kvstorePath = root + "/kvstore"
        log("loading \(config.records) records into kvstore")
        try loadKVStore(config, path: kvstorePath)

        let rawPath = root + "/lmdb"
        log("copying kvstore's records and journal into raw LMDB")
        try FileManager.default.createDirectory(atPath: rawPath, withIntermediateDirectories: true)
        let environment = try RawEnvironment(path: rawPath, mapSize: config.mapSize)
        let records = try environment.openDatabase("records", create: true)
        let journal = try environment.openDatabase("journal", create: true)
        let copied = try copy(from: kvstorePath, into: environment, records: records, journal: journal, batch: config.batch)
        guard copied.records == config.records, copied.entries == config.records else {
            throw SetupError("copied \(copied.records) records and \(copied.entries) journal entries, expected \(config.records)")
        }

        let grdb = try GRDBEngine(path: root + "/grdb", config: config, pool: pool, log: log)
        let store = try Store(path: kvstorePath, options: storeOptions(config))
        let facts = DataFacts(
            records: config.records,
            averageRecordBytes: Double(copied.recordBytes) / Double(copied.records),
            averageInsertEntryBytes: Double(pool.insertEntrySizes.reduce(0, +)) / Double(max(1, pool.insertEntrySizes.count)),
            setEntryBytes: pool.setEntry.count,
            directory: root)
        let engines = Engines(
            kvstore: KVStoreEngine(store: store, options: storeOptions(config), baseCount: config.records, pool: pool),
            raw: try RawLMDBEngine(environment: environment, records: records, journal: journal, baseCount: config.records, pool: pool),
            grdb: grdb)
        return (engines, facts)
    }

    static func storeOptions(_ config: Configuration) -> Store.Options {
        var options = Store.Options()
        options.mapSize = config.mapSize
        return options
    }

    /// Inserts `indexes` through kvstore, `batch` per write transaction.
    private static func insert(_ indexes: Range<Int>, into store: Store, batch: Int) throws {
        for start in stride(from: indexes.lowerBound, to: indexes.upperBound, by: batch) {
            try store.write { txn in
                for index in start ..< min(start + batch, indexes.upperBound) {
                    try txn.insert(Dataset.values(index), as: Dataset.ref(index))
                }
            }
        }
    }

    private static func loadKVStore(_ config: Configuration, path: String) throws {
        let store = try Store(path: path, options: storeOptions(config))
        try insert(0 ..< config.records, into: store, batch: config.batch)
        // The store closes when `store` goes away, before the C API opens its files.
    }

    private static func encodePool(_ config: Configuration, path: String) throws -> EncodedPool {
        let indexes = config.records ..< config.records + config.insertPoolSize
        do {
            let store = try Store(path: path, options: storeOptions(config))
            try insert(indexes, into: store, batch: config.batch)
            try store.setValue(.int(1_000_000), forKey: Dataset.setKey, of: Dataset.ref(indexes.lowerBound))
        }
        let environment = try RawEnvironment(path: path, mapSize: config.mapSize, readOnly: true)
        var recordBytes: [[UInt8]] = []
        try environment.forEach(in: environment.openDatabase("records", create: false)) { _, value in
            recordBytes.append(Array(value))
        }
        var entries: [[UInt8]] = []
        try environment.forEach(in: environment.openDatabase("journal", create: false)) { _, value in
            entries.append(Array(value))
        }
        guard recordBytes.count == indexes.count, entries.count == indexes.count + 1 else {
            throw SetupError("the scratch store holds \(recordBytes.count) records and \(entries.count) entries")
        }
        return EncodedPool(
            indexes: Array(indexes), recordBytes: recordBytes,
            insertEntrySizes: entries.dropLast().map(\.count), setEntry: entries[entries.count - 1])
    }

    /// Copies kvstore's `records` and `journal` databases into the raw environment, as kvstore
    /// wrote them: records by plain puts in key order, journal entries appended; `batch` per txn.
    private static func copy(
        from kvstorePath: String, into target: RawEnvironment, records: MDB_dbi, journal: MDB_dbi, batch: Int
    ) throws -> (records: Int, recordBytes: Int, entries: Int) {
        let source = try RawEnvironment(path: kvstorePath, mapSize: target.mapSize, readOnly: true)
        var counts = (records: 0, recordBytes: 0, entries: 0)
        for (name, dbi, flags) in [("records", records, UInt32(0)), ("journal", journal, UInt32(MDB_APPEND))] {
            var pending: [([UInt8], [UInt8])] = []
            func flush() throws {
                try target.transaction(readOnly: false) { txn in
                    for (key, value) in pending {
                        var k = key, v = value
                        try k.withUnsafeMutableBytes { kb in
                            try v.withUnsafeMutableBytes { vb in
                                var kv = MDB_val(mv_size: kb.count, mv_data: kb.baseAddress)
                                var vv = MDB_val(mv_size: vb.count, mv_data: vb.baseAddress)
                                try lmdbCheck(mdb_put(txn, dbi, &kv, &vv, flags), "mdb_put(copy)")
                            }
                        }
                    }
                }
                pending.removeAll(keepingCapacity: true)
            }
            try source.forEach(in: source.openDatabase(name, create: false)) { key, value in
                pending.append((Array(key), Array(value)))
                if name == "records" {
                    counts.records += 1
                    counts.recordBytes += value.count
                } else {
                    counts.entries += 1
                }
                if pending.count == batch { try flush() }
            }
            if !pending.isEmpty { try flush() }
        }
        return counts
    }
}

struct SetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
