import Foundation
import KVStore

/// In-process observer dispatch (target: ≥ 1M notifications/s): notifications delivered per
/// second, each counted by its callback. The store is a separate one in the run's directory,
/// opened with `.noSync` so that the disk does not hide the dispatch; the time still includes the
/// writes that cause the notifications (sets, journal entries, commits). kvstore only: raw LMDB
/// has no observers.
final class ObservationBench {
    let store: Store
    let records: [RecordRef]
    private let counter = Counter()
    private var tokens: [ObservationToken] = []
    /// A value never set before, so that every set is a change.
    private var next: Int64 = 0

    final class Counter: @unchecked Sendable {
        var count = 0  // callbacks run on the benchmark's (writing) thread
    }

    init(path: String, config: Configuration) throws {
        var options = Store.Options()
        options.durability = .noSync
        options.mapSize = config.mapSize
        store = try Store(path: path, options: options)
        records = try (0 ..< 1_000).map { try RecordRef(kind: "watched", id: String($0)) }
        try store.write { txn in for ref in records { try txn.insert(["n": 0], as: ref) } }
        let counter = self.counter
        for ref in records { tokens.append(try store.observe(ref, keyPath: "n") { _ in counter.count += 1 }) }
        for _ in 0 ..< 1_000 { tokens.append(try store.observe(records[0], keyPath: "fan") { _ in counter.count += 1 }) }
    }

    /// Sets `n` of every observed record once per transaction: one notification per set.
    func oneObserverPerRecord(_ workload: Workload) throws -> Int {
        try counted(20_000) {
            for _ in 0 ..< 20 {
                try store.write { txn in for ref in records { try txn.setValue(.int(nextValue()), forKey: "n", of: ref) } }
            }
        }
    }

    /// One set per transaction of a key 1,000 observers watch: 1,000 notifications per commit.
    func fanOut(_ workload: Workload) throws -> Int {
        try counted(50_000) {
            for _ in 0 ..< 50 { try store.setValue(.int(nextValue()), forKey: "fan", of: records[0]) }
        }
    }

    /// 1,000 sets per transaction of the one key one observer watches.
    func oneObserverManyChanges(_ workload: Workload) throws -> Int {
        try counted(20_000) {
            for _ in 0 ..< 20 {
                try store.write { txn in for _ in 0 ..< 1_000 { try txn.setValue(.int(nextValue()), forKey: "n", of: records[1]) } }
            }
        }
    }

    private func nextValue() -> Int64 {
        next += 1
        return next
    }

    struct MissedNotifications: Error, CustomStringConvertible {
        let expected: Int, delivered: Int
        var description: String { "expected \(expected) notifications, \(delivered) were delivered" }
    }

    /// Runs `body`, checking that it delivered `expected` notifications. - Returns: their number.
    private func counted(_ expected: Int, _ body: () throws -> Void) throws -> Int {
        let before = counter.count
        try body()
        let delivered = counter.count - before
        guard delivered == expected else { throw MissedNotifications(expected: expected, delivered: delivered) }
        return delivered
    }

    static func scenarios(near kvstore: KVStoreEngine, config: Configuration) throws -> [Scenario] {
        let path = ((kvstore.store.path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("observe")
        let bench = try ObservationBench(path: path, config: config)
        return [
            Scenario(name: "notify: 1 observer/record, 1k sets per txn", durability: "noSync", operations: { _ in 20_000 },
                     engines: [EngineRun(EngineName.kvstore, bench.oneObserverPerRecord)]),
            Scenario(name: "notify: 1k observers of 1 key, 1 set per txn", durability: "noSync", operations: { _ in 50_000 },
                     engines: [EngineRun(EngineName.kvstore, bench.fanOut)]),
            Scenario(name: "notify: 1 observer, 1k changes per txn", durability: "noSync", operations: { _ in 20_000 },
                     engines: [EngineRun(EngineName.kvstore, bench.oneObserverManyChanges)]),
        ]
    }
}
