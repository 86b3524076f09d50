import Foundation
import Testing
@testable import KVStore

/// The options of `observe`: initial, prior, old, new.
@Suite struct ObservationOptionTests {
    @Test func newOnlyCarriesTheNewValueAndTheEntrysCommitAndSequence() throws {
        let (t, ada) = try TemporaryStore.holding(["name": "Ada"], as: "person/ada")
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "name", options: [.new]) { received.add($0) }
        try t.store.setValue("Ada Lovelace", forKey: "name", of: ada)
        let entry = try #require(try t.store.journalEntries().last)
        #expect(received.all == [ObservedChange(
            ref: ada, keyPath: "name", kind: .setting, oldValue: nil, newValue: "Ada Lovelace",
            commitID: entry.commitID, sequence: entry.sequence, origin: .local)])
        _ = token
    }

    @Test func oldAndNewCarryBoth() throws {
        let (t, ada) = try TemporaryStore.holding(["name": "Ada"], as: "person/ada")
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "name", options: [.old, .new]) { received.add($0) }
        try t.store.setValue("Augusta", forKey: "name", of: ada)
        try t.store.removeValue(forKey: "name", of: ada)
        #expect(received.all.map { [$0.oldValue, $0.newValue] } == [["Ada", "Augusta"], ["Augusta", nil]])
        _ = token
    }

    @Test func oldOnlyLeavesTheNewValueOut() throws {
        let (t, ada) = try TemporaryStore.holding(["name": "Ada"], as: "person/ada")
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "name", options: [.old]) { received.add($0) }
        try t.store.setValue("Augusta", forKey: "name", of: ada)
        #expect(received.all.map(\.oldValue) == ["Ada"])
        #expect(received.all.map(\.newValue) == [nil])
        _ = token
    }

    @Test func initialReportsTheCurrentValueBeforeObserveReturns() throws {
        let (t, ada) = try TemporaryStore.holding(["address": ["city": "London"]], as: "person/ada")
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "address.city", options: [.initial, .new]) { received.add($0) }
        #expect(received.all == [ObservedChange(ref: ada, keyPath: "address.city", newValue: "London", isInitial: true)])
        try t.store.setValue("Paris", forKeyPath: "address.city", of: ada)
        #expect(received.all.map(\.newValue) == ["London", "Paris"])
        #expect(received.all.map(\.isInitial) == [true, false])
        _ = token
    }

    @Test func withoutInitialNothingArrivesUntilAChange() throws {
        let (t, ada) = try TemporaryStore.holding(["name": "Ada"], as: "person/ada")
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "name") { received.add($0) }
        #expect(received.count == 0)
        _ = token
    }

    @Test func priorRunsBeforeTheMutationWithTheCurrentValue() throws {
        let (t, ada) = try TemporaryStore.holding(["name": "Ada"], as: "person/ada")
        let store = t.store
        let received = Received<String>()
        let token = try store.observe(ada, keyPath: "name", options: [.prior, .old, .new]) { change in
            received.add("\(change.isPrior ? "prior" : "after") old=\(change.oldValue?.description ?? "nil") new=\(change.newValue?.description ?? "nil") commit=\(change.commitID.map(String.init) ?? "nil")")
        }
        try store.write { txn in
            try txn.setValue("Augusta", forKey: "name", of: ada)
            // The prior notification ran inside this transaction, before the set.
            #expect(received.all == [#"prior old="Ada" new=nil commit=nil"#])
        }
        let commit = try #require(try store.journalEntries().last?.commitID)
        #expect(received.all == [#"prior old="Ada" new=nil commit=nil"#, #"after old="Ada" new="Augusta" commit=\#(commit)"#])
        _ = token
    }

    @Test func priorReportsTheIndexesOfAnArrayEditAndRunsForAnAbortedWrite() throws {
        let (t, ada) = try TemporaryStore.holding(["tags": ["a"]], as: "person/ada")
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "tags", options: [.prior]) { received.add($0) }
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try t.store.write { txn in
                try txn.mutableArray(forKey: "tags", of: ada).append("b")
                throw Abort()
            }
        }
        #expect(received.all == [ObservedChange(ref: ada, keyPath: "tags", kind: .insertion, indexes: [1], isPrior: true)])
        _ = token
    }

    @Test func aPriorCallbackCannotWrite() throws {
        let (t, ada) = try TemporaryStore.holding(["name": "Ada"], as: "person/ada")
        let store = t.store
        let errors = Received<StoreError.Code>()
        let token = try store.observe(ada, keyPath: "name", options: [.prior]) { change in
            guard change.isPrior else { return }
            do { try store.setValue(1, forKey: "count", of: ada) } catch let error as StoreError { errors.add(error.code) }
        }
        try store.setValue("Augusta", forKey: "name", of: ada)
        #expect(errors.all == [.nestedWrite])
        #expect(try store.value(forKey: "count", of: ada) == nil)
        _ = token
    }

    @Test func priorAnnouncesARecordsInsertion() throws {
        let t = try TemporaryStore()
        let ada = ref("person/ada")
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "name", options: [.prior, .new]) { received.add($0) }
        try t.store.insert(["name": "Ada"], as: ada)
        #expect(received.all.map(\.isPrior) == [true, false])
        #expect(received.all.last?.newValue == "Ada")
        _ = token
    }
}
