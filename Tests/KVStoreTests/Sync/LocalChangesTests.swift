import Foundation
import Testing
import TestSupport
@_spi(Sync) @testable import KVStore

/// ``ReadTransaction/localChanges(after:limit:)``: what a store uploads.
@Suite struct LocalChangesTests {
    let t: TemporaryStore
    var store: Store { t.store }
    let note = ref("note/1")

    init() throws {
        t = try .syncing()
    }

    private func changes(after cursor: UInt64 = 0, limit: Int? = nil) throws -> [RemoteChange] {
        try store.read { try $0.localChanges(after: cursor, limit: limit) }.changes
    }

    @Test func aChangeInsideAKeyTravelsAsTheKeysWholeValue() throws {
        try store.insert(["title": "a", "meta": ["n": 1, "m": 2], "tags": ["x"]], as: note)
        let cursor = try store.lastSequence
        try store.write { try $0.setValue(3, forKeyPath: "meta.n", of: note) }
        try store.write { try $0.mutableArray(forKey: "tags", of: note).append("y") }
        let uploaded = try changes(after: cursor)
        #expect(uploaded.map(\.change) == [.set, .set])
        #expect(uploaded.map(\.key) == ["meta", "tags"])
        #expect(uploaded.map(\.value) == [["n": 3, "m": 2], ["x", "y"]])
        #expect(uploaded.map(\.origin) == [JournalOrigin(storeID: store.id, sequence: cursor + 1), JournalOrigin(storeID: store.id, sequence: cursor + 2)])
    }

    @Test func anEntryALaterStampSupersededIsLeftOut() throws {
        try store.insert(["title": "a", "body": "b"], as: note)
        try store.setValue("b", forKey: "title", of: note)
        try store.setValue("c", forKey: "title", of: note)
        try store.removeValue(forKey: "body", of: note)
        let uploaded = try changes()
        // The insertion carries the record as inserted (the later changes' stamps win wherever
        // they arrive); one set of title, the last.
        #expect(uploaded.map(\.change) == [.insert, .set, .remove])
        #expect(uploaded[0].value == ["title": "a", "body": "b"] && uploaded[1].value == "c" && uploaded[2].key == "body")
        // After the deletion, the insertion still carries the record's created stamp (every
        // store keeps the same state).
        try store.delete(note)
        #expect(try changes().map(\.change) == [.insert, .delete] && changes()[0].value == ["title": "a", "body": "b"])
    }

    /// An upload retried after its acknowledgement was lost must carry what the hub holds: an
    /// insertion read again after later changes of its record is the same change.
    @Test func anInsertionReadsTheSameWhateverChangesFollow() throws {
        try store.insert(["title": "a", "body": "b"], as: note)
        let first = try #require(try changes().first)
        try store.setValue("b", forKey: "title", of: note)
        #expect(try changes().first == first)
        try store.removeValue(forKey: "body", of: note)
        #expect(try changes().first == first)
    }

    @Test func otherKindsAndAppliedChangesAreLeftOutButReadPast() throws {
        try store.insert(["n": 1], as: ref("person/1"))
        try store.applyRemote([remote(.insert, note, nil, ["a": 1], at: nowMilliseconds() - 1000, from: UUID())])
        let batch = try store.read { try $0.localChanges(after: 0, limit: 10) }
        #expect(batch.changes.isEmpty && batch.lastSequence == 2)
        try store.insert(["n": 1], as: ref("note/2"))
        #expect(try store.read { try $0.localChanges(after: 0, limit: 2) }.lastSequence == 2)
        #expect(try changes(after: 2).map(\.ref) == [ref("note/2")])
    }
}
