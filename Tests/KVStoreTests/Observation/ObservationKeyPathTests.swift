import Foundation
import Testing
@testable import KVStore

/// Key paths through nested dictionaries and references, index-level changes, and re-attachment.
@Suite struct ObservationKeyPathTests {
    @Test func aKeyPathThroughNestedDictionariesSeesChangesAtEveryLevel() throws {
        let (t, ada) = try TemporaryStore.holding(["address": ["city": "London", "geo": ["lat": 51]]], as: "person/ada")
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "address.geo.lat", options: [.old, .new]) { received.add($0) }
        try t.store.setValue(52, forKeyPath: "address.geo.lat", of: ada)                    // the leaf
        try t.store.setValue(["lat": 48], forKeyPath: "address.geo", of: ada)                // an intermediate
        try t.store.setValue(["city": "Paris", "geo": ["lat": 48]], forKey: "address", of: ada)  // same lat: nothing
        try t.store.setValue("Rome", forKeyPath: "address.city", of: ada)                    // a sibling: nothing
        try t.store.removeValue(forKey: "address", of: ada)
        #expect(received.all.map { [$0.oldValue, $0.newValue] } == [[51, 52], [52, 48], [48, nil]])
        _ = token
    }

    @Test func aKeyPathThroughAReferenceReattachesWhenTheReferenceChanges() throws {
        let t = try TemporaryStore()
        let ada = ref("person/ada"), grace = ref("person/grace"), invoice = ref("invoice/1")
        try t.store.insert(["name": "Ada"], as: ada)
        try t.store.insert(["name": "Grace"], as: grace)
        try t.store.insert(["customer": .reference(ada)], as: invoice)
        let received = Received<ObservedChange>()
        let token = try t.store.observe(invoice, keyPath: "customer.name", options: [.old, .new]) { received.add($0) }
        try t.store.setValue("Ada Lovelace", forKey: "name", of: ada)
        try t.store.setValue(.reference(grace), forKey: "customer", of: invoice)  // re-attaches to grace
        try t.store.setValue("Ada L.", forKey: "name", of: ada)                   // no longer observed
        try t.store.setValue("Grace Hopper", forKey: "name", of: grace)
        try t.store.delete(grace)                                                 // dangling: nil
        try t.store.insert(["name": "Grace again"], as: grace)
        #expect(received.all.map { [$0.oldValue, $0.newValue] } == [
            ["Ada", "Ada Lovelace"], ["Ada Lovelace", "Grace"], ["Grace", "Grace Hopper"],
            ["Grace Hopper", nil], [nil, "Grace again"],
        ])
        #expect(received.all.allSatisfy { $0.kind == .setting && $0.ref == invoice && $0.keyPath == "customer.name" })
        let index = t.store.observation.index.withLock { $0.byRecord }
        #expect(index[ada] == nil)
        _ = token
    }

    @Test func anEditOfAnArrayReportsItsKindAndIndexes() throws {
        let (t, ada) = try TemporaryStore.holding(["tags": ["a", "b"]], as: "person/ada")
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "tags", options: [.old, .new]) { received.add($0) }
        try t.store.write { txn in
            let tags = txn.mutableArray(forKey: "tags", of: ada)
            try tags.insert("x", at: 1)
            try tags.remove(at: 0)
            try tags.replace(at: 0, with: "y")
        }
        let changes = received.all
        #expect(changes.map(\.kind) == [.insertion, .removal, .replacement])
        #expect(changes.map(\.indexes) == [[1], [0], [0]])
        #expect(changes.map(\.newValue) == [["x"], nil, ["y"]])
        #expect(changes.map(\.oldValue) == [nil, ["a"], ["x"]])
        // The observer's value after the edits is the whole array: a later nested change compares with it.
        try t.store.setValue(["z"], forKey: "tags", of: ada)
        #expect(received.all.last?.oldValue == ["y", "b"])
        _ = token
    }

    @Test func aCommitThatBothSetsAndNestsIntoTheKeyIsOneSetting() throws {
        let (t, ada) = try TemporaryStore.holding(["address": ["city": "London"]], as: "person/ada")
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "address", options: [.old, .new]) { received.add($0) }
        try t.store.write { txn in
            try txn.setValue(["city": "Paris"], forKey: "address", of: ada)
            try txn.setValue("Lyon", forKeyPath: "address.city", of: ada)
        }
        #expect(received.all.map { [$0.oldValue, $0.newValue] } == [[["city": "London"], ["city": "Lyon"]]])
        _ = token
    }

    @Test func elementWiseKeyPathsFollowEveryReferencedRecord() throws {
        let t = try TemporaryStore()
        let ada = ref("person/ada"), byron = ref("person/byron"), anne = ref("person/anne")
        try t.store.insert(["name": "Byron"], as: byron)
        try t.store.insert(["name": "Anne"], as: anne)
        try t.store.insert(["children": [.reference(byron), .reference(anne)]], as: ada)
        let received = Received<ObservedChange>()
        let token = try t.store.observe(ada, keyPath: "children.name") { received.add($0) }
        try t.store.setValue("Annabella", forKey: "name", of: anne)
        #expect(received.all.map(\.newValue) == [["Byron", "Annabella"]])
        _ = token
    }
}
