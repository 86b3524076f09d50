import Foundation
import GRDB
import KVStore

/// Scenario 8b, the companion of 8: one writer keeping 64 commits in flight, full / FULL. Each
/// commit is one set (as in 8), made with the engine's async write from a task group that one
/// task drives: it starts 64 writes, then a new one each time one returns. kvstore: `try await
/// store.write { txn.setValue(…) }` (its pipeline commits the queued writes in groups, syncing a
/// group's meta page while the next group commits); GRDB: `try await pool.write { … }` with the
/// same statements as 8 (GRDB serialises the writes: one transaction, one WAL sync each). The
/// commits are 8's next positions (`commits ..< 5 × commits`), so every set changes its record.
enum InFlightCommits {
    static let width = 64

    static func scenario(_ e: Engines) -> Scenario {
        Scenario("1 set per commit, 1 writer, 64 async in flight", .full, e, operations: { positions($0).count },
                 runs: [EngineRun(EngineName.kvstore, e.kvstore.inFlightCommits), EngineRun(EngineName.grdb, e.grdb.inFlightCommits)],
                 isCompanion: true)
    }

    /// The set positions of a round.
    static func positions(_ workload: Workload) -> Range<Int> {
        workload.commits ..< min(workload.commits * 5, workload.setTargets.count)
    }

    /// Calls `commit(position)` for every position, `width` at once, from one driving task; waits.
    static func run(_ positions: Range<Int>, _ commit: @escaping @Sendable (Int) async throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Shared(LockedBox())
        Task {
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    var next = positions.lowerBound
                    func add() {
                        let position = next
                        group.addTask { try await commit(position) }
                        next += 1
                    }
                    while next < min(positions.lowerBound + width, positions.upperBound) { add() }
                    while try await group.next() != nil {
                        if next < positions.upperBound { add() }
                    }
                }
            } catch {
                failure.value.keep(error)
            }
            done.signal()
        }
        done.wait()
        if let error = failure.value.error { throw error }
    }
}

/// The first error of a run, kept across threads.
final class LockedBox: @unchecked Sendable {
    private let lock = NSLock()
    private var first: (any Error)?

    func keep(_ error: any Error) {
        lock.withLock { if first == nil { first = error } }
    }

    var error: (any Error)? { lock.withLock { first } }
}

extension KVStoreEngine {
    /// Scenario 8b: `try await store.write { txn.setValue(…) }`, 64 in flight.
    func inFlightCommits(_ workload: Workload) throws -> Int {
        let (store, refs, targets, values) = (store, refs, workload.setTargets, workload.setValues)
        let positions = InFlightCommits.positions(workload)
        try InFlightCommits.run(positions) { position in
            try await store.write { txn in
                try txn.setValue(.int(values[position]), forKey: Dataset.setKey, of: refs[targets[position]])
            }
        }
        return positions.count
    }
}

extension GRDBEngine {
    /// Scenario 8b: `try await pool.write { … }` with 8's statements, 64 in flight.
    func inFlightCommits(_ workload: Workload) throws -> Int {
        let (pool, ids, targets, values) = (pool, ids, workload.setTargets, workload.setValues)
        let positions = InFlightCommits.positions(workload)
        try InFlightCommits.run(positions) { position in
            try await pool.write { db in try Self.set(db, id: ids[targets[position]], value: values[position]) }
        }
        return positions.count
    }
}
