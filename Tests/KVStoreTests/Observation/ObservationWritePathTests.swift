import Foundation
import Testing
@testable import KVStore

/// Observation of writes that take unusual paths: a bulk load that keeps no entries, a replica
/// applying several source commits in one transaction, a write re-run after map growth, a write
/// through another store than the observer's.
@Suite struct ObservationWritePathTests {
    @Test func observersSeeTheChangesOfAWriteThatKeepsNoEntries() throws {
        let (t, ada) = try TemporaryStore.holding(["n": 0], as: "person/ada")
        let changes = Received<Value?>()
        let kinds = Received<KindChanges>()
        let token = try t.store.observe(ada, keyPath: "n") { changes.add($0.newValue) }
        let kindToken = try t.store.observeKind("person") { kinds.add($0) }
        try t.store.write { txn in
            txn.keepsEntries = false  // as `kvstore load` does
            try txn.setValue(1, forKey: "n", of: ada)
            try txn.insert(["n": 2], as: ref("person/grace"))
        }
        #expect(changes.all == [1])
        #expect(kinds.all.map(\.inserted) == [["grace"]])
        #expect(kinds.all.map(\.modified) == [["ada"]])
        _ = (token, kindToken)
    }

    @Test func aReplicaReportsEachAppliedCommitToItsKindObservers() throws {
        let source = try TemporaryStore()
        let x = ref("person/x")
        try source.store.insert(["name": "X"], as: x)
        try source.store.setValue("X2", forKey: "name", of: x)
        try source.store.delete(x)
        let replica = try TemporaryStore()
        let received = Received<KindChanges>()
        let names = Received<ObservedChange>()
        let token = try replica.store.observeKind("person") { received.add($0) }
        let nameToken = try replica.store.observe(x, keyPath: "name") { names.add($0) }
        try apply(exported(source.store), to: replica.store)  // one transaction, three source commits
        let commits = try replica.store.journalEntries().map(\.commitID)
        #expect(Set(commits).count == 3)
        #expect(received.all == [
            KindChanges(kind: "person", commitID: commits[0], inserted: ["x"]),
            KindChanges(kind: "person", commitID: commits[1], modified: ["x"]),
            KindChanges(kind: "person", commitID: commits[2], deleted: ["x"]),
        ])
        #expect(names.all.map(\.newValue) == ["X", "X2", nil])
        #expect(names.all.map(\.commitID) == commits.map { $0 })
        #expect(names.all.allSatisfy { if case .replicated = $0.origin { true } else { false } })
        _ = (token, nameToken)
    }

    @Test func anObservationOutlivesTheStoreItWasMadeThrough() throws {
        let (t, ada) = try TemporaryStore.holding(["address": ["city": "London"]], as: "person/ada")
        let received = Received<Value?>()
        var other: Store? = try Store(path: t.path, options: .testing)
        let token = try other!.observe(ada, keyPath: "address.city") { received.add($0.newValue) }
        weak let gone = other
        other = nil
        #expect(gone == nil)
        try t.store.setValue(["city": "Paris"], forKey: "address", of: ada)
        #expect(received.all == ["Paris"])
        _ = token
    }
}

extension ObservationWritePathTests {
    @Test func aWriteReRunAfterMapGrowthAnnouncesEachChangeOnce() throws {
        var options = Store.Options.testing
        options.mapSize = 64 << 10
        let t = try TemporaryStore(options: options)
        let ada = ref("person/ada")
        try t.store.insert(["n": 0], as: ada)
        let received = Received<String>()
        let token = try t.store.observe(ada, keyPath: "n", options: [.prior, .new]) { received.add($0.isPrior ? "prior" : "n=\($0.newValue!)") }
        let runs = Received<Int>()
        try t.store.write { txn in
            runs.add(1)
            try txn.setValue(1, forKey: "n", of: ada)
            try txn.insert(["blob": .bytes(Data(repeating: 7, count: 1 << 20))], as: ref("blob/1"))
            try txn.setValue(2, forKey: "n", of: ada)
        }
        #expect(runs.count > 1)  // the map grew and the body ran again
        #expect(received.all == ["prior", "prior", "n=1", "n=2"])
        _ = token
    }
}

extension ObservationWritePathTests {
    @Test func aReplicaAnnouncesItsChangesToPriorObservers() throws {
        let source = try TemporaryStore()
        let x = ref("person/x")
        try source.store.insert(["tags": ["a"], "address": ["city": "London"]], as: x)
        try source.store.setValue("Paris", forKeyPath: "address.city", of: x)
        try source.store.write { txn in try txn.mutableArray(forKey: "tags", of: x).append("b") }
        let replica = try TemporaryStore()
        let city = Received<ObservedChange>(), tags = Received<ObservedChange>()
        let tokens = [
            try replica.store.observe(x, keyPath: "address.city", options: [.prior, .new]) { city.add($0) },
            try replica.store.observe(x, keyPath: "tags", options: [.prior]) { tags.add($0) },
        ]
        try apply(exported(source.store), to: replica.store)
        #expect(city.all.map { "\($0.isPrior ? "prior" : "after") \($0.newValue?.description ?? "nil")" }
                == ["prior nil", #"after "London""#, "prior nil", #"after "Paris""#])
        #expect(tags.all.filter(\.isPrior).map(\.kind) == [.setting, .insertion])
        #expect(tags.all.last(where: \.isPrior)?.indexes == [1])
        _ = tokens
    }
}
