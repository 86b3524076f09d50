import Foundation
import Testing
import TestSupport
@testable import KVStore

/// Group commit and observation: each write of a group is a commit of its own for observers,
/// delivered in commit order before that write returns.
@Suite struct GroupCommitObservationTests {
    /// Four grouped writes to one record: a key-path observer sees four changes in commit order,
    /// and an observer of a key path inside a dictionary (evaluated, not read off the entry) sees
    /// each old value as the previous write left it; a kind observer gets one batch per write.
    @Test func observersSeeEachWriteOfAGroupSeparatelyInCommitOrder() throws {
        let t = try TemporaryStore()
        let store = t.store
        let record = ref("place/p")
        try store.insert(["n": 0, "address": ["city": "c0"]], as: record)
        let exact = Received<ObservedChange>()
        let nested = Received<ObservedChange>()
        let kinds = Received<KindChanges>()
        let tokens = [
            try store.observe(record, keyPath: "n", options: [.old, .new]) { exact.add($0) },
            try store.observe(record, keyPath: "address.city", options: [.old, .new]) { nested.add($0) },
            try store.observeKind("place") { kinds.add($0) },
        ]
        defer { tokens.forEach { $0.cancel() } }
        let seenOnReturn = Received<(UInt64, Bool)>()
        try store.inOneGroup((1...4).map { i in {
            let commit = try? store.write { txn in
                try txn.setValue(.int(Int64(i)), forKey: "n", of: record)
                try txn.setValue(["city": .string("c\(i)")], forKey: "address", of: record)
                return txn.commitID
            }
            // Delivered before the write returns.
            seenOnReturn.add((commit ?? 0, kinds.all.contains { $0.commitID == commit }))
        } })
        #expect(seenOnReturn.all.count == 4 && seenOnReturn.all.allSatisfy(\.1))
        let commits = exact.all.map { $0.commitID ?? 0 }
        #expect(commits == commits.sorted() && Set(commits).count == 4)
        // The writers queued in any order: each change's old value is the one before it left.
        let news = exact.all.map(\.newValue)
        #expect(Set(news) == Set((1...4).map { Value.int(Int64($0)) }))
        #expect(exact.all.map(\.oldValue) == [.int(0)] + news.dropLast())
        let cities = nested.all.map(\.newValue)
        #expect(cities == news.map { .string("c\($0?.intValue ?? -1)") })
        #expect(nested.all.map(\.oldValue) == [.string("c0")] + cities.dropLast())
        #expect(nested.all.map(\.commitID) == exact.all.map(\.commitID))
        #expect(kinds.all.map(\.commitID) == commits)
        #expect(store.environment.commitQueue.statistics.largestGroup == 4)
    }

    /// A write made from an observer's callback while other writers are grouped commits, and
    /// every callback's write has landed by the time the writers returned.
    @Test func callbacksWriteWhileWritesAreGrouped() throws {
        let t = try TemporaryStore()
        let store = t.store
        let failures = Failures()
        let token = try store.observeKind("order") { changes in
            for id in changes.inserted {
                do { try store.insert(["for": .string(id)], as: try RecordRef(kind: "receipt", id: id)) } catch { failures.add("\(error)") }
            }
        }
        defer { token.cancel() }
        try store.inOneGroup((0..<4).map { i in {
            do { try store.insert([:], as: ref("order/\(i)")) } catch { failures.add("\(error)") }
        } })
        Store.onThreads(4) { thread in
            for i in 0..<5 {
                do { try store.insert([:], as: ref("order/t\(thread)-\(i)")) } catch { failures.add("\(error)") }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
        #expect(try store.count(ofKind: "receipt") == 24)
        #expect(try store.verify().isHealthy)
    }

    /// A group's transaction that runs again after the map grew tells observers each change once,
    /// with the values of the final run.
    @Test func aGroupRunAgainNotifiesOnce() throws {
        let t = try TemporaryStore.smallMap()
        let store = t.store
        let record = ref("holder/h")
        try store.insert(["info": ["size": 0]], as: record)
        let seen = Received<ObservedChange>()
        let token = try store.observe(record, keyPath: "info.size", options: [.old, .new]) { seen.add($0) }
        defer { token.cancel() }
        let blob = Value.bytes(Data(repeating: 7, count: 30_000))
        try store.inOneGroup((1...3).map { i in {
            try? store.write { txn in
                try txn.insert(["blob": blob], as: ref("blob/\(i)"))
                try txn.setValue(["size": .int(Int64(i))], forKey: "info", of: record)
            }
        } })
        // In commit order (the writers queued in any order), each old value the one before left.
        let news = seen.all.map(\.newValue)
        #expect(Set(news) == Set((1...3).map { Value.int(Int64($0)) }) && news.count == 3)
        #expect(seen.all.map(\.oldValue) == [.int(0)] + news.dropLast())
        #expect(try store.count(ofKind: "blob") == 3)
    }
}
