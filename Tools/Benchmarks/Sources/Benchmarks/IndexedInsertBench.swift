import Foundation
import GRDB
import KVStore

/// Inserts with two indexes against the same inserts without (scenarios 11c and 11d, companions
/// of 11): 1,000 new records per write transaction at full durability, into stores of their own,
/// the kind registered in both — one whose kind declares two indexes, one without — and the same
/// rows into two GRDB databases of their own, one with the two matching expression indexes
/// (`CREATE INDEX … ON records (data ->> 'k1')`), one without. 11c indexes two keys of random
/// values (`k1`, a 24-letter word; `k2`, an int below 100,000), so each insert lands on a random
/// page of each index; 11d indexes a key of 256 values (`k8`, like a feed) and an increasing one
/// (`k15`, like a timestamp), so a transaction's inserts crowd on few pages.
///
/// Columns: `kvstore` with indexes, `kvstore no index` without (the ratio of the two is issue 15's
/// target: at least 0.6), `GRDB` with its indexes and `GRDB no index` without: GRDB's own ratio,
/// the median of `GRDB` over that of `GRDB no index`, says what SQLite pays for the same indexes.
/// GRDB is handed each record's JSON text (made before timing, as in 11), on both sides alike.
final class IndexedInsertBench {
    static let unindexed = "kvstore no index"
    static let grdbUnindexed = "GRDB no index"

    let name: String
    let indexed: Store
    let plain: Store
    let grdbIndexed: DatabasePool
    let grdbPlain: DatabasePool
    let refs: [RecordRef]
    let values: [[String: Value]]
    let texts: [String]
    /// Rounds per scenario (after the last, the bytes written are logged).
    let rounds: Int

    /// The four stores, beside the kvstore engine's in the run's directory, with its map size (so
    /// that neither kvstore store grows its map mid-run).
    init(near kvstore: KVStoreEngine, config: Configuration, keys: [String], name: String) throws {
        let directory = (kvstore.store.path as NSString).deletingLastPathComponent as NSString
        let suffix = keys.joined(separator: "-")
        var options = Store.Options()
        options.mapSize = config.mapSize
        var kind = try Kind(Dataset.kind)
        kind.indexes = try keys.map { try KindIndex([$0]) }
        indexed = try Store(path: directory.appendingPathComponent("indexed-\(suffix)"), options: options)
        try indexed.register(kind)
        plain = try Store(path: directory.appendingPathComponent("unindexed-\(suffix)"), options: options)
        try plain.register(try Kind(Dataset.kind))  // registered alike: only the indexes differ
        grdbIndexed = try Self.grdb(in: directory.appendingPathComponent("grdb-indexed-\(suffix)"), indexing: keys)
        grdbPlain = try Self.grdb(in: directory.appendingPathComponent("grdb-unindexed-\(suffix)"), indexing: [])
        self.name = name
        refs = kvstore.poolRefs
        values = kvstore.poolValues
        texts = values.map(JSONRecord.text)
        rounds = config.rounds
    }

    /// A GRDB database with the engine's tables and an expression index on each of `keys`.
    private static func grdb(in path: String, indexing keys: [String]) throws -> DatabasePool {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let pool = try GRDBEngine.makePool(in: path)
        try pool.write { db in
            try GRDBEngine.createTables(db)
            for key in keys { try db.execute(sql: "CREATE INDEX records_\(key) ON records (data ->> '\(key)')") }
        }
        return pool
    }

    /// The scenario.
    func scenario() -> Scenario {
        Scenario(
            name: name, durability: Scenario.full, operations: { $0.insertRange.count },
            engines: [EngineRun(EngineName.kvstore) { try self.counted(EngineName.kvstore, $0) { try self.insert(into: self.indexed, $0) } },
                      EngineRun(Self.unindexed) { try self.counted(Self.unindexed, $0) { try self.insert(into: self.plain, $0) } },
                      EngineRun(EngineName.grdb) { try self.counted(EngineName.grdb, $0) { try self.insert(into: self.grdbIndexed, $0) } },
                      EngineRun(Self.grdbUnindexed) { try self.counted(Self.grdbUnindexed, $0) { try self.insert(into: self.grdbPlain, $0) } }],
            isCompanion: true)
    }

    /// The bytes each engine wrote (write system calls: LMDB's pages, SQLite's WAL frames and
    /// checkpoints) and the commits it made, over the rounds so far.
    private var written: [String: (bytes: Int, commits: Int, rounds: Int)] = [:]

    /// Runs `body`, one engine's round, counting what it writes; after the last round, logs the
    /// engine's bytes per commit.
    private func counted(_ engine: String, _ workload: Workload, _ body: (Workload) throws -> Int) throws -> Int {
        let before = Self.writtenBytes()
        let result = try body(workload)
        var total = written[engine] ?? (0, 0, 0)
        total.bytes += Self.writtenBytes() - before
        total.commits += workload.batches(of: workload.insertRange).count
        total.rounds += 1
        written[engine] = total
        if total.rounds == rounds {
            let perCommit = Double(total.bytes) / Double(max(1, total.commits))
            log("\(name), \(engine): \(Report.format(perCommit / 4096)) pages of 4 KiB (\(String(format: "%.2f", perCommit / 1_048_576)) MiB) written per commit")
        }
        return result
    }

    /// The bytes this process has passed to write system calls (`wchar` of `/proc/self/io`).
    private static func writtenBytes() -> Int {
        let text = (try? String(contentsOfFile: "/proc/self/io", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("wchar:") }
        return line.flatMap { Int($0.dropFirst("wchar:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    /// The round's inserts (the insert pool's records of scenario 11), 1,000 per write.
    private func insert(into store: Store, _ workload: Workload) throws -> Int {
        for range in workload.batches(of: workload.insertRange) {
            try store.write { txn in
                for position in range { try txn.insert(values[position], as: refs[position]) }
            }
        }
        return workload.insertRange.count
    }

    /// The same rows as GRDB's engine inserts in scenario 11 (record and journal), 1,000 per write.
    private func insert(into pool: DatabasePool, _ workload: Workload) throws -> Int {
        for range in workload.batches(of: workload.insertRange) {
            try pool.write { db in
                for position in range { try GRDBEngine.insert(db, id: refs[position].id, data: texts[position]) }
            }
        }
        return workload.insertRange.count
    }

    /// Scenarios 11c (random keys) and 11d (a feed-like key and a time-like one).
    static func scenarios(near kvstore: KVStoreEngine, config: Configuration) throws -> [Scenario] {
        [try IndexedInsertBench(near: kvstore, config: config, keys: ["k1", "k2"], name: "insert + journal, 2 random-key indexes vs none"),
         try IndexedInsertBench(near: kvstore, config: config, keys: ["k8", "k15"], name: "insert + journal, feed and time indexes vs none")]
            .map { $0.scenario() }
    }
}
