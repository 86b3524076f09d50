import Foundation
import KVStore

/// Inserts with two indexes against the same inserts without (scenarios 11c and 11d, companions
/// of 11): 1,000 new records per write transaction at full durability, into two stores of their
/// own, the kind registered in both — one whose kind declares two indexes, one without. 11c
/// indexes two keys of random values (`k1`, a 24-letter word; `k2`, an int below 100,000), so
/// each insert lands on a random page of each index; 11d indexes a key of 256 values (`k8`, like
/// a feed) and an increasing one (`k15`, like a timestamp), so a transaction's inserts crowd on
/// few pages. kvstore's column is with indexes, the `kvstore no index` column without, and the
/// ratio is with over without (issue 15's target: at least 0.6).
final class IndexedInsertBench {
    static let unindexed = "kvstore no index"

    let name: String
    let indexed: Store
    let plain: Store
    let refs: [RecordRef]
    let values: [[String: Value]]

    /// The two stores, beside the kvstore engine's in the run's directory, with its map size (so
    /// that neither grows its map mid-run).
    init(near kvstore: KVStoreEngine, config: Configuration, keys: [String], name: String) throws {
        let directory = (kvstore.store.path as NSString).deletingLastPathComponent as NSString
        var options = Store.Options()
        options.mapSize = config.mapSize
        var kind = try Kind(Dataset.kind)
        kind.indexes = try keys.map { try KindIndex([$0]) }
        indexed = try Store(path: directory.appendingPathComponent("indexed-\(keys.joined(separator: "-"))"), options: options)
        try indexed.register(kind)
        plain = try Store(path: directory.appendingPathComponent("unindexed-\(keys.joined(separator: "-"))"), options: options)
        try plain.register(try Kind(Dataset.kind))  // registered alike: only the indexes differ
        self.name = name
        refs = kvstore.poolRefs
        values = kvstore.poolValues
    }

    /// The scenario.
    func scenario() -> Scenario {
        Scenario(
            name: name, durability: "full", operations: { $0.insertRange.count },
            engines: [EngineRun(EngineName.kvstore) { try self.insert(into: self.indexed, $0) },
                      EngineRun(Self.unindexed) { try self.insert(into: self.plain, $0) }],
            isCompanion: true)
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

    /// Scenarios 11c (random keys) and 11d (a feed-like key and a time-like one).
    static func scenarios(near kvstore: KVStoreEngine, config: Configuration) throws -> [Scenario] {
        [try IndexedInsertBench(near: kvstore, config: config, keys: ["k1", "k2"], name: "insert + journal, 2 random-key indexes vs none"),
         try IndexedInsertBench(near: kvstore, config: config, keys: ["k8", "k15"], name: "insert + journal, feed and time indexes vs none")]
            .map { $0.scenario() }
    }
}
