import Foundation
import Testing
@testable import KVStore

/// `Store.revert(commit:force:)`: the inverse of every change kind, as a new commit.
@Suite struct RevertTests {
    let t: TemporaryStore
    let ada = ref("person/ada")

    init() throws {
        t = try TemporaryStore()
        try t.store.insert([
            "name": "Ada", "age": 36, "score": .double(1.5), "born": .date(Date(timeIntervalSince1970: -4_734_000_000)),
            "address": ["city": "London", "zip": "N1"], "tags": ["math", "poetry", "engines"],
            "blob": .bytes(Data([0, 1, 2])), "friend": .reference(ref("person/charles")),
        ], as: ada)
    }

    /// Makes a commit with `body`, reverts it, and checks the records are back as before and the
    /// revert is an ordinary later commit of the journal.
    private func expectRevertRestores(_ body: (WriteTransaction) throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try allRecords(t.store)
        let changed = try t.store.commitID(body)
        #expect(try allRecords(t.store) != before, "the commit changed something", sourceLocation: sourceLocation)
        let undone = try #require(try t.store.revert(commit: changed), sourceLocation: sourceLocation)
        #expect(undone > changed, sourceLocation: sourceLocation)
        #expect(try allRecords(t.store) == before, sourceLocation: sourceLocation)
        #expect(try t.store.journalEntries().last?.commitID == undone, sourceLocation: sourceLocation)
    }

    @Test func revertsSettingAKey() throws {
        try expectRevertRestores { try $0.setValue("Augusta", forKey: "name", of: ada) }
    }

    @Test func revertsAddingAKeyByRemovingIt() throws {
        try expectRevertRestores { try $0.setValue(1815, forKey: "year", of: ada) }
    }

    @Test func revertsRemovingAKeyWithItsType() throws {
        try expectRevertRestores { txn in
            try txn.removeValue(forKey: "born", of: ada)
            try txn.removeValue(forKey: "score", of: ada)
            try txn.removeValue(forKey: "blob", of: ada)
        }
    }

    @Test func revertsNestedKeys() throws {
        try expectRevertRestores { try $0.setValue("Paris", forKeyPath: "address.city", of: ada) }
        try expectRevertRestores { try $0.removeValue(forKeyPath: "address.zip", of: ada) }
        try expectRevertRestores { try $0.setValue("UK", forKeyPath: "address.country", of: ada) }
    }

    @Test func revertsArrayInsertionsRemovalsAndReplacementsAtIndexes() throws {
        try expectRevertRestores { try $0.mutableArray(forKey: "tags", of: ada).insert(["a", "b"], at: [0, 3]) }
        try expectRevertRestores { try $0.mutableArray(forKey: "tags", of: ada).remove(at: [0, 2]) }
        try expectRevertRestores { try $0.mutableArray(forKey: "tags", of: ada).replace(at: [1], with: ["prose"]) }
        try expectRevertRestores { txn in
            let tags = txn.mutableArray(forKey: "tags", of: ada)
            try tags.append("x")
            try tags.remove(at: [0])
            try tags.replace(at: [0, 2], with: ["P", "E"])
            try tags.insert("first", at: 0)
        }
    }

    @Test func revertsARecordInsertionByDeletingIt() throws {
        try expectRevertRestores { try $0.insert(["name": "Charles", "age": 41], as: ref("person/charles")) }
    }

    @Test func revertsARecordDeletionWithAllItsKeysAndTypes() throws {
        try expectRevertRestores { try $0.delete(ada) }
    }

    @Test func revertsAWholeCommitOfManyChangesInReverseOrder() throws {
        try expectRevertRestores { txn in
            try txn.setValue("Augusta", forKey: "name", of: ada)
            try txn.setValue("Ada", forKey: "nickname", of: ada)
            let charles = try txn.insert(["name": "Charles"], kind: "person")
            try txn.setValue(.reference(charles), forKey: "friend", of: ada)
            try txn.delete(charles)
            try txn.delete(ada)
            try txn.insert(["name": "Ada II"], as: ada)
        }
    }

    @Test func revertingARevertRedoes() throws {
        let changed = try t.store.commitID { try $0.setValue("Augusta", forKey: "name", of: ada) }
        let undone = try #require(try t.store.revert(commit: changed))
        #expect(try t.store.value(forKey: "name", of: ada) == "Ada")
        let redone = try #require(try t.store.revert(commit: undone))
        #expect(redone > undone)
        #expect(try t.store.value(forKey: "name", of: ada) == "Augusta")
        #expect(try t.store.journalEntries().filter { $0.commitID == redone }.map(\.change) == [.setting])
    }

    @Test func aLaterChangeOfTheSameKeyIsRefusedNamingItUnlessForced() throws {
        let changed = try t.store.commitID { try $0.setValue("Augusta", forKey: "name", of: ada) }
        let later = try t.store.commitID { try $0.setValue("Lady Lovelace", forKey: "name", of: ada) }
        try t.store.commitID { try $0.setValue(37, forKey: "age", of: ada) }  // another key: no conflict
        let before = try allRecords(t.store)
        let error = try #require(throws: RevertError.self) { try t.store.revert(commit: changed) }
        #expect(error.code == .conflict && error.laterCommit == later && error.ref == ada && error.keyPath == "name")
        #expect(error.description == "cannot revert commit \(changed): commit \(later) changed 'name' of person/ada after it; force: true reverts anyway")
        #expect(!error.description.contains("\n"))
        #expect(try allRecords(t.store) == before, "a refused revert changes nothing")
        try t.store.revert(commit: changed, force: true)
        #expect(try t.store.value(forKey: "name", of: ada) == "Ada")
    }

    @Test func aLaterChangeInsideOrAroundTheKeyOrOfTheRecordConflicts() throws {
        let nested = try t.store.commitID { try $0.setValue("Paris", forKeyPath: "address.city", of: ada) }
        try t.store.commitID { try $0.setValue(["city": "Rome"], forKey: "address", of: ada) }
        #expect(throws: RevertError.self) { try t.store.revert(commit: nested) }
        let age = try t.store.commitID { try $0.setValue(40, forKey: "age", of: ada) }
        try t.store.commitID { try $0.delete(ada) }
        let error = try #require(throws: RevertError.self) { try t.store.revert(commit: age) }
        #expect(error.message == "commit \(age + 1) deleted person/ada after it")
    }

    @Test func aTruncatedCommitIsAClearErrorNamingTheRetention() throws {
        let first = try t.store.commitID { try $0.setValue("Augusta", forKey: "name", of: ada) }
        try t.store.commitID { try $0.setValue(40, forKey: "age", of: ada) }
        let last = try t.store.read { try $0.lastSequence() }
        try t.store.truncateJournal(before: last)
        let error = try #require(throws: RevertError.self) { try t.store.revert(commit: first) }
        #expect(error.code == .truncated)
        #expect(error.description == "cannot revert commit \(first): its entries were truncated from the journal: the journal keeps sequences \(last) through \(last) (from commit \(first + 1) on)")
        let none = try #require(throws: RevertError.self) { try t.store.revert(commit: 99) }
        #expect(none.code == .noSuchCommit)
        #expect(throws: RevertError.self) { try t.store.revert(commit: 0) }
    }

    @Test func theInverseGoesThroughTheClosedKindsRules() throws {
        let legacy = ref("note/1")
        try t.store.insert(["text": "hi", "legacy": true], as: legacy)
        let deleted = try t.store.commitID { try $0.delete(legacy) }
        try t.store.write { try $0.declare(try Kind("note", keys: ["text": .string])) }
        let error = try #require(throws: KeyValueCodingError.self) { try t.store.revert(commit: deleted) }
        #expect(error.code == .undefinedKey)
        #expect(try t.store.read { try $0.contains(legacy) } == false)
    }

    @Test func aKindDeclarationIsNotReverted() throws {
        let declared = try t.store.commitID { try $0.declare(try Kind("note", keys: ["text": .string])) }
        let error = try #require(throws: RevertError.self) { try t.store.revert(commit: declared) }
        #expect(error.code == .notRevertible)
    }
}
