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
}
