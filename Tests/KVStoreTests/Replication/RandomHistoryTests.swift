import Foundation
import Testing
import TestSupport
@testable import KVStore

/// Random histories (inserts, deletes, settings of keys and nested key paths, settings through a
/// reference into another record, array insertions, removals and replacements, several changes per
/// commit): a replay and a replica applied in small batches both reproduce the source's records,
/// and a follow export never splits a commit however its batches fall.
@Suite struct RandomHistoryTests {
    /// Makes 40 random commits of 1–4 changes on five records.
    func makeHistory(_ store: Store, seed: UInt64) throws {
        var random = CodecRandom(seed: seed)
        func pick(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        let refs = (0..<5).map { ref("thing/\($0)") }
        for _ in 0..<40 {
            try store.write { txn in
                for _ in 0...pick(4) {
                    let record = refs[pick(5)]
                    guard try txn.contains(record) else {
                        try txn.insert(["n": .int(Int64(pick(5))), "d": ["x": ["y": 1]], "a": [1, 2, 3], "o": .reference(refs[pick(5)])], as: record)
                        continue
                    }
                    let array = txn.mutableArray(forKey: "a", of: record)
                    let count = try array.count
                    switch pick(8) {
                    case 0: try txn.delete(record)
                    case 1: try txn.setValue(.int(Int64(pick(3))), forKey: "n", of: record)
                    case 2: try? txn.setValue(.int(Int64(pick(3))), forKeyPath: "d.x.y", of: record)   // d.x may be gone
                    case 3: try? txn.setValue(.int(Int64(pick(3))), forKeyPath: "o.n", of: record)     // the target may be gone
                    case 4: try array.insert(.int(Int64(pick(9))), at: pick(count + 1))
                    case 5 where count > 0: try array.remove(at: pick(count))
                    case 6 where count > 0: try array.replace(at: pick(count), with: .int(Int64(pick(9))))
                    default: try? txn.removeValue(forKeyPath: "d.x", of: record)
                    }
                }
            }
        }
    }

    @Test(arguments: 0..<4) func replayAndAReplicaReproduceTheRecords(seed: UInt64) throws {
        let source = try TemporaryStore()
        try makeHistory(source.store, seed: seed)
        let copy = try TemporaryStore()
        try source.store.replayJournal(into: copy.store)
        #expect(try allRecords(copy.store) == allRecords(source.store))

        let replica = try TemporaryStore()
        let reader = try JournalStreamReader(bytes: exported(source.store))
        let applier = JournalApplier(store: replica.store, mode: .replica(source: source.store.id))
        var batcher = JournalApplier.Batcher(applier: applier, limit: 3)   // many batches of whole commits
        while let commit = try reader.nextCommit() { try batcher.add(commit) }
        try batcher.flush()
        #expect(try allRecords(replica.store) == allRecords(source.store))
        #expect(try source.store.verify().isHealthy)
        #expect(try replica.store.verify().isHealthy)
    }

    /// What a follow export running on its own thread has sent.
    private final class Export: @unchecked Sendable {
        let lock = NSLock()
        var bytes: [UInt8] = []
        var follower: JournalFollower?
        var error: (any Error)?
        let done = DispatchSemaphore(value: 0)

        var commits: [[JournalEntry]] {
            guard let reader = try? JournalStreamReader(bytes: lock.withLock { bytes }) else { return [] }
            var commits: [[JournalEntry]] = []
            while let commit = try? reader.nextCommit() { commits.append(commit) }
            return commits
        }
    }

    @Test(arguments: [1, 3]) func aFollowExportKeepsEachCommitWholeWhileCommitsArrive(batchLimit: Int) throws {
        let source = try TemporaryStore()
        let store = source.store
        var options = JournalFollowOptions()
        options.batchLimit = batchLimit
        let batched = options
        let export = Export()
        Thread {
            do {
                try store.exportJournal(since: 1, following: batched, onStart: { follower in
                    export.lock.withLock { export.follower = follower }
                }) { chunk in export.lock.withLock { export.bytes += chunk } }
            } catch {
                export.lock.withLock { export.error = error }
            }
            export.done.signal()
        }.start()
        try makeHistory(store, seed: UInt64(batchLimit))
        let journal = try store.journalEntries()
        #expect(waitUntil { export.commits.reduce(0) { $0 + $1.count } == journal.count })
        export.lock.withLock { export.follower }?.stop()
        #expect(export.done.wait(timeout: .now() + 60) == .success)
        #expect(export.lock.withLock { export.error } == nil)
        let sent = export.commits.map { $0.map(\.sequence) }
        let made = Dictionary(grouping: journal, by: \.commitID).values.map { $0.map(\.sequence) }.sorted { $0[0] < $1[0] }
        #expect(sent == made)
    }
}
