import Foundation
import Testing
import TestSupport
@testable import KVStore

/// Tokens, and what an observation may start from: a record that does not exist yet.
@Suite struct ObservationTokenTests {
    @Test func cancelStopsNotificationsAndIsIdempotent() throws {
        let (t, ada) = try TemporaryStore.holding(["n": 0], as: "person/ada")
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "n") { received.add($0) }
        try t.store.setValue(1, forKey: "n", of: ada)
        token.cancel()
        token.cancel()
        try t.store.setValue(2, forKey: "n", of: ada)
        #expect(received.all.map(\.newValue) == [1])
    }

    @Test func releasingTheTokenStopsObserving() throws {
        let (t, ada) = try TemporaryStore.holding(["n": 0], as: "person/ada")
        let received = Received<ObservedChange>()
        var token: ObservationToken? = try t.store.observe(ada, keyPath: "n") { received.add($0) }
        try t.store.setValue(1, forKey: "n", of: ada)
        token = nil
        try t.store.setValue(2, forKey: "n", of: ada)
        #expect(received.all.map(\.newValue) == [1])
        #expect(token == nil)
        #expect(t.store.observation.observerCount.load(ordering: .relaxed) == 0)
        #expect(t.store.observation.index.withLock { $0.byRecord.isEmpty })
    }

    @Test func aCallbackMayCancelItsOwnToken() throws {
        let (t, ada) = try TemporaryStore.holding(["n": 0], as: "person/ada")
        let received = Received<ObservedChange>()
        let holder = TokenBox()
        holder.token = try t.store.observe(ada, keyPath: "n") { change in
            received.add(change)
            holder.token?.cancel()
        }
        try t.store.write { txn in
            try txn.setValue(1, forKey: "n", of: ada)
            try txn.setValue(2, forKey: "n", of: ada)
        }
        try t.store.setValue(3, forKey: "n", of: ada)
        #expect(received.all.map(\.newValue) == [1])
    }

    @Test func observingARecordThatDoesNotExistYetFiresOnItsInsertionAndDeletion() throws {
        let t = try TemporaryStore()
        let ada = ref("person/ada")
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "name", options: [.initial, .old, .new]) { received.add($0) }
        try t.store.insert(["name": "Ada"], as: ada)
        try t.store.delete(ada)
        try t.store.insert(["name": "Ada again"], as: ada)
        let changes = received.all
        #expect(changes.map(\.isInitial) == [true, false, false, false])
        #expect(changes.map(\.kind) == [.setting, .setting, .setting, .setting])
        #expect(changes.map { [$0.oldValue, $0.newValue] } == [[nil, nil], [nil, "Ada"], ["Ada", nil], [nil, "Ada again"]])
        _ = token
    }

    @Test func anUnparsableOrUnevaluableKeyPathIsRefused() throws {
        let (t, ada) = try TemporaryStore.holding(["name": "Ada"], as: "person/ada")
        #expect(performing: { _ = try t.store.observe(ada, keyPath: "a..b") { _ in } }, throws: code(.invalidKeyPath))
        #expect(performing: { _ = try t.store.observe(ada, keyPath: "name.first") { _ in } }, throws: code(.notAContainer))
        #expect(t.store.observation.observerCount.load(ordering: .relaxed) == 0)
    }

    @Test func observingInsideATransactionIsANestedWrite() throws {
        let t = try TemporaryStore()
        let ada = ref("person/ada")
        let store = t.store
        try store.read { _ -> Void in
            #expect(performing: { _ = try store.observe(ada, keyPath: "name") { _ in } }, throws: { error in
                (error as? StoreError)?.code == .nestedWrite
            })
        }
    }

    @Test func anotherStoreOnTheSameDirectorySharesTheObservers() throws {
        let (t, ada) = try TemporaryStore.holding(["n": 0], as: "person/ada")
        let other = try Store(path: t.path, options: .testing)
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "n") { received.add($0) }
        try other.setValue(1, forKey: "n", of: ada)
        #expect(received.all.map(\.newValue) == [1])
        _ = token
    }
}

extension ObservationTokenTests {
    @Test func aReplicatedChangeSaysWhereItCameFrom() throws {
        let (t, ada) = try TemporaryStore.holding(["n": 0], as: "person/ada")
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "n") { received.add($0) }
        let source = JournalOrigin(storeID: UUID(), sequence: 42)
        try t.store.write { txn in
            txn.origin = source
            try txn.setValue(1, forKey: "n", of: ada)
        }
        try t.store.setValue(2, forKey: "n", of: ada)
        #expect(received.all.map(\.origin) == [.replicated(source), .local])
        _ = token
    }

    @Test func aReadOnlyStoreCanBeObserved() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        let ada = ref("person/ada")
        try Store(path: path).insert(["name": "Ada"], as: ada)  // closed again once it goes away
        var options = Store.Options.testing
        options.readOnly = true
        let store = try Store(path: path, options: options)
        let received = Received<ObservedChange>()
        let token = try store.observe(ada, keyPath: "name", options: [.initial, .new]) { received.add($0) }
        #expect(received.all.map(\.newValue) == ["Ada"])
        _ = token
    }

    @Test func theAsyncSequenceRefusesABadKeyPath() throws {
        let t = try TemporaryStore()
        #expect(performing: { _ = try t.store.changes(of: ref("person/ada"), keyPath: "@count.") }, throws: code(.invalidKeyPath))
    }
}

final class TokenBox: @unchecked Sendable {
    var token: ObservationToken?
}

extension ObservationTokenTests {
    final class Witness: Sendable {}

    /// Once its token is gone, nothing holds an observation's callback (nor what it captured),
    /// also after the observation re-attached and after kind observers and delivered batches.
    @Test func aReleasedTokenLetsGoOfItsCallback() throws {
        let (t, invoice) = try TemporaryStore.holding(["customer": .reference(ref("person/ada"))], as: "invoice/1")
        try t.store.insert(["name": "Ada"], as: ref("person/ada"))
        try t.store.insert(["name": "Grace"], as: ref("person/grace"))
        weak var watched: Witness?
        weak var kindWatched: Witness?
        do {
            let witness = Witness(), kindWitness = Witness()
            watched = witness
            kindWatched = kindWitness
            let token = try t.store.observe(invoice, keyPath: "customer.name") { _ in _ = witness }
            let kindToken = try t.store.observeKind("person") { _ in _ = kindWitness }
            try t.store.setValue(.reference(ref("person/grace")), forKey: "customer", of: invoice)
            try t.store.setValue("Grace Hopper", forKey: "name", of: ref("person/grace"))
            _ = (token, kindToken)
        }
        #expect(watched == nil)
        #expect(kindWatched == nil)
        #expect(t.store.observation.observerCount.load(ordering: .relaxed) == 0)
        #expect(t.store.observation.index.withLock { $0.byRecord.isEmpty && $0.byKind.isEmpty })
    }
}
