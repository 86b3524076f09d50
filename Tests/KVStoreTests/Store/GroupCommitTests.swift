import Foundation
import Testing
import TestSupport
@testable import KVStore

/// Group commit: writes that wait for their turn commit together in one LMDB transaction, each
/// keeping its own commit id, its own outcome and its own notifications. The stores keep the
/// default durability (full), not the tests' `.testing`: the syncs a group shares are the point.
@Suite struct GroupCommitTests {
    struct Refused: Error, Equatable {}

    /// Eight threads × 25 small writes: every write lands once, with commit ids strictly
    /// increasing in journal order and each write's two entries contiguous; `verify` agrees.
    @Test(arguments: [Durability.noSync, .full])
    func concurrentWritersAllLandWithIncreasingCommitIDs(durability: Durability) throws {
        var options = Store.Options()
        options.durability = durability
        let t = try TemporaryStore(options: options)
        let store = t.store
        let failures = Failures()
        let commits = Received<UInt64>()
        Store.onThreads(8) { thread in
            let counter = ref("counter/w\(thread)")
            var last: UInt64 = 0
            for i in 0..<25 {
                do {
                    let commit = try store.write { txn in
                        if i == 0 { try txn.insert(["n": 0], as: counter) }
                        try txn.setValue(.int(Int64(i)), forKey: "n", of: counter)
                        try txn.setValue(.string("w\(thread)-\(i)"), forKey: "by", of: counter)
                        return txn.commitID
                    }
                    guard let commit, commit > last else { return failures.add("w\(thread) write \(i): commit \(String(describing: commit)) after \(last)") }
                    last = commit
                    commits.add(commit)
                } catch { failures.add("w\(thread) write \(i): \(error)") }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
        #expect(commits.all.sorted() == Array(1...200))
        #expect(try store.journalCommitRuns() == Array(1...200))
        for thread in 0..<8 { #expect(try store.value(forKey: "n", of: ref("counter/w\(thread)")) == 24) }
        let report = try store.verify()
        #expect(report.isHealthy, "\(report.findings)")
        #expect(report.entries == 8 + 200 * 2 - 8)  // the first write's setting of n to 0 changes nothing
    }

    /// Writers queued behind a write commit as one group: one LMDB transaction for all of them,
    /// and the queue counts the group — so this fails with grouping off.
    @Test func queuedWritersShareOneTransaction() throws {
        let t = try TemporaryStore(options: Store.Options())
        let store = t.store
        try store.insert([:], as: ref("seed/s"))
        let transactionsBefore = store.environment.lastTransactionID
        let commits = Received<UInt64>()
        try store.inOneGroup((0..<4).map { i in {
            let commit = try? store.write { txn in
                try txn.insert(["i": .int(Int64(i))], as: ref("item/\(i)"))
                return txn.commitID
            }
            commits.add(commit ?? 0)
        } })
        #expect(store.environment.lastTransactionID == transactionsBefore + 1)
        #expect(store.environment.commitQueue.statistics == .init(groups: 1, groupedWrites: 4, largestGroup: 4))
        #expect(commits.all.sorted() == [2, 3, 4, 5])
        #expect(try store.journalCommitRuns() == [1, 2, 3, 4, 5])
        #expect(try store.count(ofKind: "item") == 4)
    }

    /// With grouping off, the same writers commit one transaction each.
    @Test func groupingOffCommitsEachWriteAlone() throws {
        var options = Store.Options()
        options.groupsCommits = false
        options.durability = .noSync
        let t = try TemporaryStore(options: options)
        let store = t.store
        let transactionsBefore = store.environment.lastTransactionID
        Store.onThreads(4) { thread in
            for i in 0..<10 { try? store.insert([:], as: ref("item/\(thread)-\(i)")) }
        }
        #expect(store.environment.lastTransactionID == transactionsBefore + 40)
        #expect(store.environment.commitQueue.statistics == .init())
        #expect(try store.journalCommitRuns() == Array(1...40))
    }

    /// A body that throws in a group drops only its own changes: its writer gets its own error,
    /// the others commit with consecutive commit ids, and the store verifies.
    @Test func aThrowingWriteFailsAloneInItsGroup() throws {
        let t = try TemporaryStore(options: Store.Options())
        let store = t.store
        let outcomes = Received<(Int, String)>()
        try store.inOneGroup((0..<4).map { i in {
            do {
                try store.write { txn in
                    try txn.insert(["i": .int(Int64(i))], as: ref("item/\(i)"))
                    if i == 1 { throw Refused() }
                }
                outcomes.add((i, "committed"))
            } catch {
                outcomes.add((i, error is Refused ? "refused" : "\(error)"))
            }
        } })
        let byWriter = Dictionary(uniqueKeysWithValues: outcomes.all)
        #expect(byWriter == [0: "committed", 1: "refused", 2: "committed", 3: "committed"])
        #expect(try store.read { try $0.contains(ref("item/1")) } == false)
        #expect(try store.count(ofKind: "item") == 3)
        #expect(try store.journalCommitRuns() == [1, 2, 3])
        #expect(try store.journalEntries().map(\.ref).contains(ref("item/1")) == false)
        #expect(store.environment.commitQueue.statistics.largestGroup == 4)
        #expect(try store.verify().isHealthy)
    }

    /// A grouped body that starts a write of its own gets ``StoreError/Code/nestedWrite`` — it
    /// runs on the thread leading the group, which holds the write — and the group goes on.
    @Test func aWriteInsideAGroupedBodyIsANestedWrite() throws {
        let t = try TemporaryStore(options: Store.Options())
        let store = t.store
        let nested = Received<StoreError.Code?>()
        try store.inOneGroup((0..<3).map { i in {
            try? store.write { txn in
                if i == 1 {
                    do { try store.write { _ in } } catch { nested.add((error as? StoreError)?.code) }
                }
                try txn.insert([:], as: ref("item/\(i)"))
            }
        } })
        #expect(nested.all == [.nestedWrite])
        #expect(try store.count(ofKind: "item") == 3)
        #expect(store.environment.commitQueue.statistics.largestGroup == 3)
    }

    /// A thread inside a read that writes while the store is busy fails at once with
    /// ``StoreError/Code/nestedWrite``, rather than queueing behind a write that could need its
    /// read to end (map growth).
    @Test func aWriteInsideAReadIsRefusedBeforeItQueues() throws {
        let t = try TemporaryStore(options: Store.Options())
        let store = t.store
        let outcome = Received<StoreError.Code?>()
        let done = DispatchSemaphore(value: 0)
        try store.write { txn in
            Thread {
                do {
                    try store.read { _ in try store.write { _ in } }
                    outcome.add(nil)
                } catch { outcome.add((error as? StoreError)?.code) }
                done.signal()
            }.start()
            done.wait()  // the write holds the store meanwhile: the refusal must not wait for it
            try txn.insert([:], as: ref("item/a"))
        }
        #expect(outcome.all == [.nestedWrite])
    }

    /// A group that fills a small map runs again once it grew: every write lands once.
    @Test func aGroupThatFillsTheMapRunsAgain() throws {
        let t = try TemporaryStore.smallMap()
        let store = t.store
        let mapBefore = store.environment.currentMapSize
        let failures = Failures()
        let blob = Value.bytes(Data(repeating: 0x5A, count: 40_000))
        try store.inOneGroup((0..<4).map { i in {
            do {
                try store.write { txn in
                    for j in 0..<3 { try txn.insert(["blob": blob], as: ref("blob/\(i)-\(j)")) }
                }
            } catch { failures.add("\(i): \(error)") }
        } })
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(store.environment.currentMapSize > mapBefore)
        #expect(try store.count(ofKind: "blob") == 12)
        #expect(try store.journalCommitRuns() == [1, 2, 3, 4])
        #expect(try store.verify().isHealthy)
    }

    /// When the map may not grow, a write that does not fit fails with the storage error while
    /// the others in its group commit.
    @Test func aWriteThatDoesNotFitFailsAloneWhenTheMapMayNotGrow() throws {
        var options = Store.Options()
        options.mapSize = 256 << 10
        options.maxMapSize = 256 << 10
        options.durability = .noSync
        let t = try TemporaryStore(options: options)
        let store = t.store
        let outcomes = Received<(Int, StoreError.Code?)>()
        try store.inOneGroup((0..<3).map { i in {
            do {
                try store.write { txn in
                    let size = i == 1 ? 1 << 20 : 100
                    try txn.insert(["blob": .bytes(Data(repeating: 1, count: size))], as: ref("blob/\(i)"))
                }
                outcomes.add((i, nil))
            } catch { outcomes.add((i, (error as? StoreError)?.code ?? .corrupt)) }
        } })
        let byWriter = Dictionary(uniqueKeysWithValues: outcomes.all.map { ($0.0, $0.1) })
        #expect(byWriter[0] == .some(nil) && byWriter[2] == .some(nil))
        #expect(byWriter[1] == .some(.storage))
        #expect(try store.count(ofKind: "blob") == 2)
        #expect(try store.verify().isHealthy)
    }

    /// Typed models and key-value coding writes share a group.
    @Test func typedAndKeyValueWritesShareAGroup() throws {
        let t = try TemporaryStore(options: Store.Options())
        let store = t.store
        let failures = Failures()
        try store.inOneGroup([
            { do { try store.insert(Contact(id: "1", name: "Ada", address: Address(city: "London"))) } catch { failures.add("\(error)") } },
            { do { try store.insert(["name": "Grace"], as: ref("contact/2")) } catch { failures.add("\(error)") } },
            { do { try store.write { txn in try txn.insert(Contact(id: "3", name: "Alan")) } } catch { failures.add("\(error)") } },
        ])
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(try store.fetch(Contact.self, id: "1")?.address?.city == "London")
        #expect(try store.fetch(Contact.self, id: "2")?.name == "Grace")
        #expect(try store.value(forKey: "name", of: ref("contact/3")) == "Alan")
        #expect(store.environment.commitQueue.statistics.largestGroup == 3)
        #expect(try store.journalCommitRuns().count == 3)
    }

    /// The example of `Store.write`'s doc comment (group commit).
    @Test func docExample() throws {
        let t = try TemporaryStore(options: Store.Options())
        let store = t.store
        // Eight threads, each committing small durable writes: they share syncs.
        let counters = try (0..<8).map { _ in try store.insert(["n": 0], kind: "counter") }
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            try! store.write { txn in try txn.setValue(.int(Int64(i)), forKey: "n", of: counters[i]) }
        }
        #expect(try counters.map { try store.value(forKey: "n", of: $0) } == (0..<8).map { .int(Int64($0)) })
    }
}
