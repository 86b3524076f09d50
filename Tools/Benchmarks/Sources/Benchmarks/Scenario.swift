/// One measured operation, run by every engine on the same workload.
///
/// Each engine contributes a closure that performs the round's operations and returns a checksum
/// of what it read (so the work cannot be optimised away). Adding a peer (GRDB, say) is adding an
/// ``EngineRun`` to each scenario: the first engine is the subject, every later one a baseline
/// that gets its own ratio column.
struct Scenario {
    let name: String
    /// Operations one engine performs in one round.
    let operations: (Workload) -> Int
    let engines: [EngineRun]
}

struct EngineRun {
    let engine: String
    let run: (Workload) throws -> Int

    init(_ engine: String, _ run: @escaping (Workload) throws -> Int) {
        self.engine = engine
        self.run = run
    }
}

/// The engine names, which are also the report's column titles.
enum EngineName {
    static let kvstore = "kvstore"
    static let rawLMDB = "raw LMDB"
}

extension Scenario {
    /// The scenarios, in the order they run: reads first, then writes (which change the data).
    static func all(kvstore: KVStoreEngine, raw: RawLMDBEngine) -> [Scenario] {
        [
            Scenario(
                name: "get 1 key, 1 read txn each, random",
                operations: { $0.readOrder.count },
                engines: [
                    EngineRun(EngineName.kvstore, kvstore.singleReads),
                    EngineRun(EngineName.rawLMDB, raw.singleReads),
                ]),
            Scenario(
                name: "get 1 key, 1k per read txn, random",
                operations: { $0.readOrder.count },
                engines: [
                    EngineRun(EngineName.kvstore, kvstore.batchedReads),
                    EngineRun(EngineName.rawLMDB, raw.batchedReads),
                ]),
            Scenario(
                name: "set 1 key + journal, 1k per txn, random",
                operations: { $0.setTargets.count },
                engines: [
                    EngineRun(EngineName.kvstore, kvstore.batchedSets),
                    EngineRun(EngineName.rawLMDB, raw.batchedSets),
                ]),
            Scenario(
                name: "insert + journal, 1k per txn, new ids",
                operations: { $0.insertRange.count },
                engines: [
                    EngineRun(EngineName.kvstore, kvstore.batchedInserts),
                    EngineRun(EngineName.rawLMDB, raw.batchedInserts),
                ]),
        ]
    }
}
