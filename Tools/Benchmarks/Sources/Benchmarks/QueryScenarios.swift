import Foundation
import GRDB
import KVStore

/// Queries without an index (scenarios 15 and 16): a predicate over every record of the kind,
/// kvstore's `fetch` against GRDB's `SELECT … WHERE data ->> 'k' …` on the same records. Each
/// round scans all base records; the figure is records scanned per second. Raw LMDB has no query
/// language and does not run.
enum QueryBench {
    /// `k2 < 5000 AND k1 BEGINSWITH 'a'` (about 0.2 % of the records): two keys read from each
    /// record, the second only when the first comparison holds, as SQLite's `AND` does.
    static let predicate = "\(Dataset.sumKey) < 5000 AND k1 BEGINSWITH 'a'"
    static let sql = "data ->> '\(Dataset.sumKey)' < 5000 AND data ->> 'k1' GLOB 'a*'"

    /// `k2 < 50000` (half the records) sorted by `k6` descending, the first 50: a top-k.
    static let sortedPredicate = "\(Dataset.sumKey) < 50000"
    static let sortedSQL = "data ->> '\(Dataset.sumKey)' < 50000 ORDER BY data ->> 'k6' DESC, id LIMIT 50"

    static func scenarios(_ e: Engines) -> [Scenario] {
        let records: (Workload) -> Int = { _ in e.kvstoreRecordCount() }
        return [
            Scenario(name: "query, no index: 2 keys, 0.2 % match", operations: records, engines: [
                EngineRun(EngineName.kvstore) { _ in try e.kvstore.fetch(predicate, sortedBy: []) },
                EngineRun(EngineName.grdb) { _ in try e.grdb.fetch(where: sql) },
            ]),
            Scenario(name: "query, no index: 50 % match, sort, limit 50", operations: records, engines: [
                EngineRun(EngineName.kvstore) { _ in try e.kvstore.fetch(sortedPredicate, sortedBy: ["k6:desc"], limit: 50) },
                EngineRun(EngineName.grdb) { _ in try e.grdb.fetch(where: sortedSQL) },
            ]),
        ]
    }
}

extension KVStoreEngine {
    /// The records of the kind that match `predicate`, decoded; a checksum of their `k0`s and keys.
    func fetch(_ predicate: String, sortedBy sort: [String], limit: Int? = nil) throws -> Int {
        let query = RecordQuery(
            kind: Dataset.kind, where: try KeyPathPredicate(predicate),
            sortedBy: try sort.map(KeyPathSort.init(parsing:)), limit: limit
        )
        var sum = 0
        for (position, record) in try store.fetch(query).enumerated() {
            sum &+= (position + 1) &* (Int(record.values["k0"]?.intValue ?? 0) &+ record.values.count)
        }
        return sum
    }
}

extension GRDBEngine {
    /// `SELECT id, data … WHERE kind = ? AND <condition>` (in id order unless it says otherwise),
    /// each row's JSON decoded; the same checksum as kvstore's.
    func fetch(where condition: String) throws -> Int {
        let order = condition.contains("ORDER BY") ? "" : " ORDER BY id"
        return try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT id, data FROM records WHERE kind = ? AND \(condition)\(order)")
            let rows = try Row.fetchCursor(statement, arguments: [Dataset.kind])
            var sum = 0
            var position = 0
            while let row = try rows.next() {
                position += 1
                let data: Data = row[1]
                guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { continue }
                sum &+= position &* ((object["k0"] as? Int ?? 0) &+ object.count)
            }
            return sum
        }
    }
}
