import Foundation
import KVStore

/// Group commit on against off (scenario 9b, the companion of 9): `writers` threads each commit
/// one small change per write to a record of their own, at full durability, in two stores of
/// their own — one grouping the commits of writers that queue (the default), one committing every
/// write alone (`Store.Options.groupsCommits = false`). kvstore's column is grouping on, the
/// `kvstore ungrouped` column off, and the ratio is on over off. Each round also logs how many
/// writes each LMDB transaction carried. The instructions of a write that finds the store free
/// are counted under callgrind on scenario 8 (see Tools/Benchmarks/README.md).
final class GroupCommitBench {
    static let ungrouped = "kvstore ungrouped"

    /// One of the two stores, with a record per writer thread.
    final class Side {
        let name: String
        let store: Store
        let records: [RecordRef]

        init(name: String, path: String, groupsCommits: Bool, writers: Int) throws {
            var options = Store.Options()
            options.groupsCommits = groupsCommits
            self.name = name
            store = try Store(path: path, options: options)
            records = try (0 ..< writers).map { try RecordRef(kind: "counter", id: "w\($0)") }
            try store.write { txn in for record in records { try txn.insert(["n": 0], as: record) } }
        }
    }

    let grouped: Side
    let alone: Side

    /// The two stores, beside the kvstore engine's in the run's directory.
    init(near kvstore: KVStoreEngine, config: Configuration) throws {
        let directory = (kvstore.store.path as NSString).deletingLastPathComponent as NSString
        grouped = try Side(
            name: "group commit on", path: directory.appendingPathComponent("group-commit-on"),
            groupsCommits: true, writers: config.writers)
        alone = try Side(
            name: "group commit off", path: directory.appendingPathComponent("group-commit-off"),
            groupsCommits: false, writers: config.writers)
    }

    /// Scenario 9b.
    func scenario() -> Scenario {
        Scenario(
            name: "1 set per commit, 8 writer threads, group commit on vs off", durability: "full",
            operations: { $0.commits },
            engines: [EngineRun(EngineName.kvstore) { try self.run(self.grouped, $0) },
                      EngineRun(Self.ungrouped) { try self.run(self.alone, $0) }],
            isCompanion: true)
    }

    /// The round's commits from `workload.writers` threads, thread t setting record t; checks
    /// every one was journaled. - Returns: the number of commits.
    private func run(_ side: Side, _ workload: Workload) throws -> Int {
        let (store, records) = (side.store, side.records)
        let transactionsBefore = try store.statistics().environment.lastTransaction
        let sequenceBefore = try store.read { try $0.lastSequence() }
        try workload.onWriterThreads { position in
            try store.setValue(.int(workload.setValues[position]), forKey: "n", of: records[position % records.count])
        }
        let journaled = try store.read { try $0.lastSequence() } - sequenceBefore
        guard journaled == UInt64(workload.commits) else {
            throw SetupError("\(side.name): the journal has \(journaled) new entries, expected \(workload.commits)")
        }
        let transactions = try store.statistics().environment.lastTransaction - transactionsBefore
        let writesEach = String(format: "%.1f", Double(workload.commits) / Double(max(transactions, 1)))
        log("\(side.name): \(workload.commits) commits in \(transactions) LMDB transactions (\(writesEach) writes each)")
        return workload.commits
    }
}
