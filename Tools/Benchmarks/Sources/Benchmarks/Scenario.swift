import KVStore

/// One measured operation, run by every engine on the same workload.
///
/// Each engine contributes a closure that performs the round's operations and returns a checksum
/// of what it did (so the work cannot be optimised away). The first engine is the subject, every
/// later one a baseline that gets its own ratio column. Engines marked `checked` must return the
/// same checksum in every round (they read or wrote the same values); the run fails otherwise.
struct Scenario {
    let name: String
    /// The durability each engine runs at, as the table shows it ("" for reads).
    var durability = ""
    /// Operations one engine performs in one round.
    let operations: (Workload) -> Int
    let engines: [EngineRun]
    /// Runs before the scenario's first round (e.g. sets every engine's durability).
    var setUp: () throws -> Void = {}
    /// A companion of the row before: it takes that row's number with a letter (11b, 11c), is
    /// selected with it by `--scenario`, and measures the same operation with different inputs.
    var isCompanion = false
}

struct EngineRun {
    let engine: String
    let run: (Workload) throws -> Int
    /// Whether this engine's checksum must equal the other checked engines' in each round.
    let checked: Bool

    init(_ engine: String, checked: Bool = true, _ run: @escaping (Workload) throws -> Int) {
        self.engine = engine
        self.checked = checked
        self.run = run
    }
}

/// The engine names, which are also the report's column titles.
enum EngineName {
    static let kvstore = "kvstore"
    static let rawLMDB = "raw LMDB"
    static let grdb = "GRDB"
}

/// The three engines of the ratio scenarios.
struct Engines {
    let kvstore: KVStoreEngine
    let raw: RawLMDBEngine
    let grdb: GRDBEngine

    func use(_ durability: Durability) throws {
        try kvstore.use(durability)
        try raw.use(durability)
        try grdb.use(durability)
    }

    /// The three engines' runs of one scenario; `rawChecked` when raw LMDB's checksum must agree.
    func runs(
        _ kvstore: @escaping (Workload) throws -> Int, _ raw: @escaping (Workload) throws -> Int,
        _ grdb: @escaping (Workload) throws -> Int, rawChecked: Bool = false
    ) -> [EngineRun] {
        [EngineRun(EngineName.kvstore, kvstore), EngineRun(EngineName.rawLMDB, checked: rawChecked, raw), EngineRun(EngineName.grdb, grdb)]
    }
}

extension Scenario {
    /// The ratio, observation and query scenarios, numbered 1…; the figures (``Figures``) follow.
    static let numberedCount = 16

    static let full = "full / FULL"
    static let relaxed = "noMetaSync / NORMAL"
    static let periodic = "periodicSync / NORMAL"

    /// A write scenario at `durability`: every engine switches to it first.
    init(_ name: String, _ durability: Durability, _ engines: Engines, operations: @escaping (Workload) -> Int, runs: [EngineRun], isCompanion: Bool = false) {
        let label = switch durability {
        case .full: Self.full
        case .periodicSync: Self.periodic
        default: Self.relaxed
        }
        self.init(name: name, durability: label, operations: operations, engines: runs) {
            try engines.use(durability)
        }
        self.isCompanion = isCompanion
    }

    /// The scenarios, in the order they run: reads first, then writes (which change the data).
    /// Raw LMDB reads bytes without decoding them, so only kvstore's and GRDB's checksums are
    /// compared, except for the sum, which all three compute.
    static func all(_ e: Engines, groupCommit: GroupCommitBench, indexedInserts: [Scenario]) -> [Scenario] {
        let (k, r, g) = (e.kvstore, e.raw, e.grdb)
        return [
            Scenario(name: "get 1 key, 1 read txn each, random", operations: { $0.readOrder.count },
                     engines: e.runs(k.singleReads, r.singleReads, g.singleReads)),
            Scenario(name: "get 1 key, 1k per read txn, random", operations: { $0.readOrder.count },
                     engines: e.runs(k.batchedReads, r.batchedReads, g.batchedReads)),
            Scenario(name: "get whole record, 1k per read txn, random", operations: { $0.readOrder.count },
                     engines: e.runs(k.batchedRecordReads, r.batchedReads, g.batchedRecordReads)),  // raw: the same gets
            Scenario(name: "scan the kind, records decoded", operations: { _ in e.kvstoreRecordCount() },
                     engines: e.runs(k.scan, r.scan, g.scan)),
            Scenario(name: "@sum.\(Dataset.sumKey) over the kind (records)", operations: { _ in e.kvstoreRecordCount() },
                     engines: e.runs(k.sum, r.sum, g.sum, rawChecked: true)),
            Scenario("set 1 key + journal, 1k per txn, random", .full, e, operations: { $0.setTargets.count },
                     runs: e.runs(k.batchedSets, r.batchedSets, g.batchedSets)),
            Scenario("set 1 key + journal, 1k per txn, random", .noMetaSync, e, operations: { $0.setTargets.count },
                     runs: e.runs(k.batchedSets, r.batchedSets, g.batchedSets)),
            Scenario("1 set per commit, 1 writer", .full, e, operations: { $0.commits },
                     runs: e.runs(k.singleCommits, r.singleCommits, g.singleCommits)),
            // 8b: one writer with 64 async commits in flight.
            InFlightCommits.scenario(e),
            Scenario("1 set per commit, 8 writer threads", .full, e, operations: { $0.commits },
                     runs: e.runs(k.concurrentCommits, r.concurrentCommits, g.concurrentCommits)),
            // 9b: the same commits with group commit on and off, each in a small store of its own.
            groupCommit.scenario(),
            // 10: kvstore's periodicSync (no sync per commit; a background sync every second)
            // against SQLite's WAL NORMAL (no sync per commit; syncs at checkpoints).
            Scenario("1 set per commit, 8 writer threads", .periodicSync, e, operations: { $0.commits },
                     runs: e.runs(k.concurrentCommits, r.concurrentCommits, g.concurrentCommits)),
            Scenario("insert + journal, 1k per txn, new ids", .full, e, operations: { $0.insertRange.count },
                     runs: e.runs(k.batchedInserts, r.batchedInserts, g.batchedInserts)),
            // 11b: GRDB starts from the same dictionaries kvstore gets and writes their JSON in the
            // timed loop (11 hands it the JSON text); kvstore inserts the same way as in 11.
            Scenario("insert + journal, GRDB encodes JSON in loop", .full, e, operations: { $0.companionInsertRange.count },
                     runs: [EngineRun(EngineName.kvstore, k.batchedCompanionInserts), EngineRun(EngineName.grdb, g.batchedInsertsEncoding)],
                     isCompanion: true),
        ] + indexedInserts  // 11c, 11d: 11's inserts into a store whose kind has two indexes, against one without
    }
}

extension Engines {
    /// Records of the kind now (the insert scenario adds some to every engine alike).
    func kvstoreRecordCount() -> Int { (try? kvstore.store.count(ofKind: Dataset.kind)) ?? 0 }
}
