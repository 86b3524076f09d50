import Foundation
import Testing
import TestSupport
@_spi(Sync) @testable import KVStore

/// What a kind's hooks write to other records while a remote change is applied is this store's
/// own change: stamped by its clock, journaled without an origin, kept in the sync state and
/// uploaded — else the other stores would never see it.
@Suite struct ApplyRemoteHookTests {
    let other = UUID()
    let note = ref("note/1"), audit = ref("note/audit"), plain = ref("person/audit")

    @Test func aHooksWriteToAnotherRecordIsALocalChange() throws {
        var kind = try Kind("note")
        let (audit, plain) = (self.audit, self.plain)
        kind.setValueForUndefinedKey = { value, key, ref, txn in
            try txn.storeValue(value, forKey: key, of: ref)
            for counted in [audit, plain] where !(try txn.contains(counted)) {
                try txn.insert(["count": 1], as: counted)
            }
        }
        let t = try TemporaryStore.syncing(declaring: [kind])
        try t.store.applyRemote([remote(.insert, note, nil, ["title": "a"], at: nowMilliseconds() - 2_000, from: other)])
        let cursor = try t.store.lastSequence
        // An undeclared key: the kind's hook stores it, and counts in two other records.
        let change = remote(.set, note, "color", "red", at: nowMilliseconds() - 1_000, from: other)
        #expect(try t.store.applyRemote([change]).applied == 1)
        let entries = try t.store.journalEntries(from: cursor + 1)
        let byRef = Dictionary(grouping: entries, by: \.ref)
        // The remote record's entry carries the origin and the remote stamp…
        #expect(byRef[note]?.map { $0.syncStamp(localStore: t.store.id) } == [change.syncStamp])
        // …the hook's entries are this store's, stamped by its clock.
        for counted in [audit, plain] {
            let local = try #require(byRef[counted]?.first)
            #expect(local.origin == nil && local.stamp != nil && local.syncStamp(localStore: t.store.id).store == t.store.id)
        }
        // The synced one is tracked and uploaded; the other kind is not synced.
        let stamp = try #require(byRef[audit]?.first).syncStamp(localStore: t.store.id)
        #expect(try t.store.read { try $0.syncState(of: audit) }.created == stamp)
        let uploaded = try t.store.read { try $0.localChanges(after: cursor, limit: nil) }.changes
        #expect(uploaded.map(\.ref) == [audit] && uploaded.first?.stamp == stamp.time)
        #expect(try t.store.verify().findings == [])
    }
}
