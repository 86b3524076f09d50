import Foundation
import GRDB
import KVStore

/// The SQLite peer, through GRDB: a `DatabasePool` (WAL mode) holding the same records as rows
/// `records(kind, id, data)` — `data` the record's 16 keys as JSON text (``JSONRecord``), primary
/// key (kind, id), `WITHOUT ROWID` — and a `journal(seq, kind, id, key, old, new)` table written in
/// the same transaction as every change, as kvstore journals. Reading one key extracts it in SQL
/// (`data ->> 'k7'`); reading a whole record fetches `data` and decodes it with
/// `JSONSerialization` into a dictionary, as kvstore decodes a record into `[String: Value]`.
/// Statements are GRDB's cached prepared statements.
///
/// Durability matches kvstore's (Sources/KVStore/KVStore.docc/GroupCommitAndDurability.md): full
/// sync is `synchronous=FULL` on the writer, relaxed (kvstore's `.noMetaSync`) is
/// `synchronous=NORMAL` (GRDB's WAL default).
final class GRDBEngine {
    let pool: DatabasePool
    /// Ids of the base records, by index, and the insert pool's ids, JSON text and dictionaries
    /// (the same `[String: Value]` kvstore's engine inserts, for scenario 11b).
    let ids: [String]
    let poolIDs: [String]
    let poolData: [String]
    let poolValues: [[String: Value]]
    private static let kind = Dataset.kind

    init(path: String, config: Configuration, pool encoded: EncodedPool, log: (String) -> Void) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        pool = try Self.makePool(in: path)
        ids = (0 ..< config.records).map(Dataset.id)
        poolIDs = encoded.indexes.map(Dataset.id)
        poolValues = encoded.indexes.map(Dataset.values)
        poolData = poolValues.map(JSONRecord.text)
        try pool.write(Self.createTables)
        log("loading \(config.records) records into GRDB")
        for start in stride(from: 0, to: config.records, by: config.batch) {
            try pool.write { db in
                for index in start ..< min(start + config.batch, config.records) {
                    try Self.insert(db, id: ids[index], data: JSONRecord.text(Dataset.values(index)))
                }
            }
        }
    }

    /// Sets the writer's `synchronous` to match kvstore's durability (`.noSync` is not matched).
    func use(_ durability: Durability) throws {
        let mode = durability == .full ? "FULL" : "NORMAL"
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(mode)") }
    }

    /// A pool on `directory`/db.sqlite (WAL), its writer at `synchronous=FULL`.
    static func makePool(in directory: String) throws -> DatabasePool {
        var configuration = GRDB.Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        return try DatabasePool(path: directory + "/db.sqlite", configuration: configuration)
    }

    /// The `records` and `journal` tables.
    static func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE records (kind TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (kind, id)) WITHOUT ROWID;
            CREATE TABLE journal (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, id TEXT NOT NULL, key TEXT, old, new);
            """)
    }

    /// Inserts a record row and its journal row.
    static func insert(_ db: Database, id: String, data: String) throws {
        try db.cachedStatement(sql: "INSERT INTO records (kind, id, data) VALUES (?, ?, ?)").execute(arguments: [kind, id, data])
        try db.cachedStatement(sql: "INSERT INTO journal (kind, id, key, old, new) VALUES (?, ?, NULL, NULL, ?)").execute(arguments: [kind, id, data])
    }

    private static let oneKey = "SELECT data ->> '\(Dataset.readKey)' FROM records WHERE kind = ? AND id = ?"

    /// One `pool.read` (a read transaction) per read of one key.
    func singleReads(_ workload: Workload) throws -> Int {
        var sum = 0
        for index in workload.readOrder {
            sum &+= try pool.read { db in
                Self.touch(try String.fetchOne(db.cachedStatement(sql: Self.oneKey), arguments: [Self.kind, ids[index]]))
            }
        }
        return sum
    }

    /// `batch` reads of one key per `pool.read`.
    func batchedReads(_ workload: Workload) throws -> Int {
        var sum = 0
        for range in workload.batches(of: workload.readOrder.indices) {
            sum &+= try pool.read { db in
                let statement = try db.cachedStatement(sql: Self.oneKey)
                var partial = 0
                for position in range {
                    partial &+= Self.touch(try String.fetchOne(statement, arguments: [Self.kind, ids[workload.readOrder[position]]]))
                }
                return partial
            }
        }
        return sum
    }

    /// `batch` whole-record reads per `pool.read`, each decoded into a dictionary; sums key counts.
    func batchedRecordReads(_ workload: Workload) throws -> Int {
        var sum = 0
        for range in workload.batches(of: workload.readOrder.indices) {
            sum &+= try pool.read { db in
                let statement = try db.cachedStatement(sql: "SELECT data FROM records WHERE kind = ? AND id = ?")
                var partial = 0
                for position in range {
                    guard let data = try Data.fetchOne(statement, arguments: [Self.kind, ids[workload.readOrder[position]]]) else { continue }
                    partial &+= try Self.decode(data).count
                }
                return partial
            }
        }
        return sum
    }

    /// Every record of the kind, in id order, each decoded; sums key counts.
    func scan(_ workload: Workload) throws -> Int {
        try pool.read { db in
            let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT id, data FROM records WHERE kind = ? ORDER BY id"), arguments: [Self.kind])
            var sum = 0
            while let row = try rows.next() {
                let data: Data = row[1]
                sum &+= try Self.decode(data).count
            }
            return sum
        }
    }

    /// `SELECT sum(data ->> 'k2')` over the kind.
    func sum(_ workload: Workload) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT sum(data ->> '\(Dataset.sumKey)') FROM records WHERE kind = ?", arguments: [Self.kind]) ?? 0
        }
    }

    /// One set of one int key: read the old value, `json_set` the record, append a journal row.
    private func set(_ db: Database, index: Int, value: Int64) throws {
        try Self.set(db, id: ids[index], value: value)
    }

    /// ``set(_:index:value:)`` of the record `id`.
    static func set(_ db: Database, id: String, value: Int64) throws {
        let old = try Int64.fetchOne(db.cachedStatement(sql: "SELECT data ->> '\(Dataset.setKey)' FROM records WHERE kind = ? AND id = ?"), arguments: [kind, id])
        try db.cachedStatement(sql: "UPDATE records SET data = json_set(data, '$.\(Dataset.setKey)', ?) WHERE kind = ? AND id = ?").execute(arguments: [value, kind, id])
        try db.cachedStatement(sql: "INSERT INTO journal (kind, id, key, old, new) VALUES (?, ?, ?, ?, ?)").execute(arguments: [kind, id, Dataset.setKey, old, value])
    }

    /// `batch` sets per `pool.write`.
    func batchedSets(_ workload: Workload) throws -> Int {
        for range in workload.batches(of: workload.setTargets.indices) {
            try pool.write { db in
                for position in range { try set(db, index: workload.setTargets[position], value: workload.setValues[position]) }
            }
        }
        return workload.setTargets.count
    }

    /// One set per `pool.write`, from one thread.
    func singleCommits(_ workload: Workload) throws -> Int {
        for position in 0 ..< workload.commits {
            try pool.write { db in try set(db, index: workload.setTargets[position], value: workload.setValues[position]) }
        }
        return workload.commits
    }

    /// One set per `pool.write`, from `workload.writers` threads at once (GRDB serialises them).
    func concurrentCommits(_ workload: Workload) throws -> Int {
        try workload.onWriterThreads { position in
            try self.pool.write { db in try self.set(db, index: workload.setTargets[position], value: workload.setValues[position]) }
        }
        return workload.commits
    }

    /// `batch` inserts (record row + journal row) per `pool.write`, pre-encoded JSON.
    func batchedInserts(_ workload: Workload) throws -> Int {
        for range in workload.batches(of: workload.insertRange) {
            try pool.write { db in
                for position in range { try Self.insert(db, id: poolIDs[position], data: poolData[position]) }
            }
        }
        return workload.insertRange.count
    }

    /// Scenario 11b: `batch` inserts per `pool.write`, each record's JSON written inside the timed
    /// loop from the dictionary kvstore's engine inserts (``JSONRecord``, the writer that made
    /// 11's pre-encoded text: the same bytes are stored).
    func batchedInsertsEncoding(_ workload: Workload) throws -> Int {
        for range in workload.batches(of: workload.companionInsertRange) {
            try pool.write { db in
                for position in range { try Self.insert(db, id: poolIDs[position], data: JSONRecord.text(poolValues[position])) }
            }
        }
        return workload.companionInsertRange.count
    }

    private static func decode(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw SetupError("a record is not a JSON object") }
        return object
    }

    /// The same digest of a read string as kvstore's side (``KVStoreEngine``).
    @inline(__always)
    private static func touch(_ string: String?) -> Int {
        guard let string else { return 0 }
        return string.utf8.count &+ Int(string.utf8.first ?? 0)
    }
}
