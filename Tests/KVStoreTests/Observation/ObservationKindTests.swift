import Foundation
import Testing
@testable import KVStore

/// Kind-level observation: per commit, the ids inserted, deleted and modified.
@Suite struct ObservationKindTests {
    @Test func eachCommitReportsItsNetChangesToTheKind() throws {
        let t = try TemporaryStore()
        let received = Received<KindChanges>()
        let token = try t.store.observeKind("person") { received.add($0) }
        try t.store.write { txn in
            try txn.insert(["name": "Ada"], as: ref("person/ada"))
            try txn.insert(["name": "Grace"], as: ref("person/grace"))
            try txn.setValue("Grace Hopper", forKey: "name", of: ref("person/grace"))  // still just inserted
            try txn.insert(["name": "Temp"], as: ref("person/temp"))
            try txn.delete(ref("person/temp"))                                        // not reported
            try txn.insert(["amount": 1], as: ref("invoice/1"))                       // another kind
        }
        try t.store.write { txn in
            try txn.setValue("Ada Lovelace", forKey: "name", of: ref("person/ada"))
            try txn.delete(ref("person/grace"))
            try txn.insert(["name": "Alan"], as: ref("person/alan"))
        }
        try t.store.write { txn in
            try txn.delete(ref("person/ada"))
            try txn.insert(["name": "Ada II"], as: ref("person/ada"))                 // replaced: modified
        }
        try t.store.setValue(2, forKey: "amount", of: ref("invoice/1"))                // no person: nothing
        let commits = try t.store.journalEntries().map(\.commitID)
        #expect(received.all == [
            KindChanges(kind: "person", commitID: commits[0], inserted: ["ada", "grace"]),
            KindChanges(kind: "person", commitID: commits[7], inserted: ["alan"], deleted: ["grace"], modified: ["ada"]),
            KindChanges(kind: "person", commitID: commits[10], modified: ["ada"]),
        ])
        _ = token
    }

    @Test func cancellingStopsKindObservationAndABadKindIsRefused() throws {
        let t = try TemporaryStore()
        let received = Received<KindChanges>()
        let token = try t.store.observeKind("person") { received.add($0) }
        try t.store.insert(["name": "Ada"], as: ref("person/ada"))
        token.cancel()
        token.cancel()
        try t.store.insert(["name": "Grace"], as: ref("person/grace"))
        #expect(received.count == 1)
        #expect(throws: RecordRefError.self) { _ = try t.store.observeKind("") { _ in } }
    }
}
