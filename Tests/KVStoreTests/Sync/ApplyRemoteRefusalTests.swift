import Foundation
import Testing
import TestSupport
@_spi(Sync) @testable import KVStore

/// A remote change the local kind's rules refuse: a typed error naming the change, and nothing
/// of its batch applied.
@Suite struct ApplyRemoteRefusalTests {
    let other = UUID()
    let base = nowMilliseconds() - 100_000
    let note = ref("note/1")

    /// A store syncing `note`, declared by `kind`, holding note/1 = ["title": "a", "guid": "g1"]
    /// and note/2 = ["guid": "g2"] from remote insertions; then `refused` after a change that
    /// would apply, in one batch.
    private func expectRefused(
        _ refused: RemoteChange, by kind: Kind, reason: String, options: Store.Options = .testing, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let t = try TemporaryStore.syncing(declaring: [kind], options: options)
        try t.store.applyRemote([
            remote(.insert, note, nil, ["title": "a", "guid": "g1"], at: base, from: other),
            remote(.insert, ref("note/2"), nil, ["guid": "g2"], at: base + 1, from: other),
        ])
        let (sequence, records, sync) = (try t.store.lastSequence, try t.store.allRecords(), try t.store.syncDatabase())
        let applies = remote(.set, note, "title", "b", at: base + 2, from: other)
        #expect(throws: SyncStateError.self, sourceLocation: sourceLocation) {
            do { try t.store.applyRemote([applies, refused]) } catch let error as SyncStateError {
                #expect(error.code == .refused && error.change == refused, sourceLocation: sourceLocation)
                #expect(error.message.hasPrefix("remote change \(refused) refused: ") && error.message.contains(reason), "\(error)", sourceLocation: sourceLocation)
                #expect(error.message.contains("\(other.lowercasedText)#\(refused.origin.sequence)") && error.message.contains("note/"), sourceLocation: sourceLocation)
                throw error
            }
        }
        #expect(try t.store.lastSequence == sequence && t.store.allRecords() == records && t.store.syncDatabase() == sync, sourceLocation: sourceLocation)
        // A caller that catches the error cannot commit the half-applied batch either.
        #expect(throws: SyncStateError.self, sourceLocation: sourceLocation) {
            try t.store.write { txn in _ = try? txn.applyRemote([applies, refused]) }
        }
        #expect(try t.store.lastSequence == sequence && t.store.allRecords() == records, sourceLocation: sourceLocation)
    }

    @Test func anUndeclaredKeyOfAClosedKind() throws {
        let kind = try Kind("note", keys: ["title": .string, "guid": .string])
        try expectRefused(remote(.set, note, "color", "red", at: base + 3, from: other), by: kind, reason: "undefined key 'color' of closed kind 'note'")
    }

    @Test func aValueOfAnotherTypeThanDeclared() throws {
        let kind = try Kind("note", keys: ["title": .string, "guid": .string])
        try expectRefused(remote(.insert, ref("note/3"), nil, ["title": 5], at: base + 3, from: other), by: kind, reason: "'title'")
    }

    @Test func aValidatorsRefusal() throws {
        var kind = try Kind("note")
        kind.validators["title"] = { value, _, _ in
            if value == "bad" { throw KeyValueCodingError.validationFailed(key: "title", reason: "no bad titles", ref: nil) }
        }
        var options = Store.Options.testing
        options.validatesOnSet = true
        try expectRefused(remote(.set, note, "title", "bad", at: base + 3, from: other), by: kind, reason: "no bad titles", options: options)
    }

    @Test func aHookThatStoresUnderAnotherKey() throws {
        var kind = try Kind("note")
        kind.setValueForUndefinedKey = { value, key, ref, txn in try txn.storeValue(value, forKey: key == "heading" ? "title" : key, of: ref) }
        try expectRefused(remote(.set, note, "heading", "h", at: base + 3, from: other), by: kind, reason: "the kind's hooks left note/1 with keys guid, title where the change leaves guid, heading, title")
    }

    @Test func aDuplicateInAUniqueIndex() throws {
        var kind = try Kind("note")
        kind.indexes = [try KindIndex(["guid"], unique: true, folded: false)]
        try expectRefused(remote(.set, ref("note/2"), "guid", "g1", at: base + 3, from: other), by: kind, reason: "unique")
    }

    /// A later change's record whose sync state is damaged: the error comes after the batch's
    /// first change was written, so a caller that catches it cannot commit that change alone.
    @Test func aDamagedStateAfterAChangeWasWritten() throws {
        let t = try TemporaryStore.syncing()
        try t.store.applyRemote([
            remote(.insert, note, nil, ["title": "a"], at: base, from: other),
            remote(.insert, ref("note/2"), nil, ["guid": "g2"], at: base + 1, from: other),
        ])
        try t.store.write { txn in
            try txn.transaction.put(SyncStateStorage.key("guid", of: ref("note/2")), [7], in: try #require(txn.databases.sync))
        }
        let (sequence, records) = (try t.store.lastSequence, try t.store.allRecords())
        let batch = [remote(.set, note, "title", "b", at: base + 2, from: other), remote(.set, ref("note/2"), "guid", "g3", at: base + 3, from: other)]
        #expect(throws: StoreError.self) { try t.store.write { txn in _ = try? txn.applyRemote(batch) } }
        #expect(try t.store.lastSequence == sequence && t.store.allRecords() == records)
        do {
            try t.store.applyRemote(batch)
            Issue.record("the batch applied")
        } catch let error as StoreError {
            #expect(error.code == .corrupt && error.message.contains("the sync state of note/2 key 'guid' is corrupt"), "\(error)")
        }
    }
}
