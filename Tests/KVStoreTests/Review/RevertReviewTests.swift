import Foundation
import Testing
@testable import KVStore

/// Review of `Store.revert(commit:force:)`: cases the feature's own tests leave out.
@Suite struct RevertReviewTests {
    let t: TemporaryStore
    let ada = ref("person/ada")
    let original: [String: Value] = ["name": "Ada", "age": 36, "address": ["city": "London", "zip": .null]]

    init() throws {
        t = try TemporaryStore()
        try t.store.insert(original, as: ada)
    }

    /// A nested null is a value a record may hold (an inserted or loaded dictionary keeps it):
    /// setting it and reverting must give the record back exactly.
    @Test func revertingASetOfANestedNullGivesTheNullBack() throws {
        let before = try allRecords(t.store)
        let changed = try t.store.commitID { try $0.setValue("N1", forKeyPath: "address.zip", of: ada) }
        try t.store.revert(commit: changed)
        #expect(try allRecords(t.store) == before)
    }

    /// `force` overwrites a later change: a record deleted by the commit and inserted again
    /// since gets the deleted values back (not a `recordExists` error).
    @Test func aForcedRevertOfADeletionOverwritesTheRecordInsertedSince() throws {
        let deleted = try t.store.commitID { try $0.delete(ada) }
        try t.store.commitID { try $0.insert(["name": "Someone else"], as: ada) }
        #expect(throws: RevertError.self) { try t.store.revert(commit: deleted) }
        try t.store.revert(commit: deleted, force: true)
        #expect(try t.store.record(ada) == original.filter { !$0.value.isNull })
    }

    /// `force` over a later deletion: an insertion or a key change of a record deleted since is
    /// skipped (the record stays deleted), not a `recordNotFound` error; unforced, a conflict.
    @Test func aForcedRevertOfAChangeToARecordDeletedSinceLeavesItDeleted() throws {
        let bob = ref("person/bob")
        let changes = try t.store.commitID { txn in
            try txn.insert(["name": "Bob"], as: bob)
            try txn.setValue(40, forKey: "age", of: ada)
        }
        try t.store.commitID { txn in try txn.delete(bob); try txn.delete(ada) }
        let error = try #require(throws: RevertError.self) { try t.store.revert(commit: changes) }
        #expect(error.code == .conflict)
        #expect(try t.store.revert(commit: changes, force: true) == nil)
        #expect(try t.store.record(ada) == nil && t.store.record(bob) == nil)
    }

    /// A store with no commits yet says so, not "commits are 1 through 0".
    @Test func noSuchCommitInAStoreWithoutCommitsReadsWell() throws {
        let empty = try TemporaryStore()
        let error = try #require(throws: RevertError.self) { try empty.store.revert(commit: 1) }
        #expect(error.code == .noSuchCommit)
        #expect(!error.description.contains("1 through 0"), "\(error)")
    }
}

/// Review of `ErrorReason.text(of:)`: a Swift error that gives its reason the Foundation way
/// (`LocalizedError.errorDescription`) is read for it too, not dumped as `EmptyName()`.
@Suite struct ErrorReasonReviewTests {
    struct EmptyName: LocalizedError {
        var errorDescription: String? { "a name must not be empty" }
    }

    @Test func aValidatorsLocalizedErrorGivesItsDescription() throws {
        let t = try TemporaryStore()
        var kind = try Kind("person")
        kind.validators["name"] = { _, _, _ in throw EmptyName() }
        try t.store.register(kind)
        let ada = ref("person/ada")
        try t.store.insert([:], as: ada)
        let error = try #require(throws: KeyValueCodingError.self) {
            try t.store.write { try $0.validatingSetValue("", forKey: "name", of: ada) }
        }
        #expect(error.description == "person/ada: invalid value for key 'name': a name must not be empty")
    }
}

/// Review: a replica refuses a revert (a local write) and changes nothing; the source's revert
/// reaches it as an ordinary commit.
@Suite struct RevertOnReplicaReviewTests {
    @Test func aReplicaRefusesARevertAndAppliesTheSourcesOne() throws {
        let source = try TemporaryStore(), replica = try TemporaryStore()
        let ada = ref("person/ada")
        try source.store.insert(["name": "Ada"], as: ada)
        let renamed = try #require(try source.store.write { txn in try txn.setValue("Augusta", forKey: "name", of: ada); return txn.commitID })
        func sync() throws {
            var bytes: [UInt8] = []
            try source.store.exportJournal(since: 1) { bytes += $0 }
            try replica.store.applyJournal(JournalStreamReader(bytes: bytes))
        }
        try sync()
        let local = try #require(try replica.store.journalEntries().last?.commitID)
        let error = try #require(throws: StoreError.self) { try replica.store.revert(commit: local) }
        #expect(error.code == .replica)
        #expect(try replica.store.value(forKey: "name", of: ada) == "Augusta")
        try source.store.revert(commit: renamed)
        try sync()
        #expect(try replica.store.value(forKey: "name", of: ada) == "Ada")
    }
}

/// Review: `UndoStack` says an observer may use the stack from its callback. A write recorded
/// from the callback of an undo's own commit is a new edit: it must leave the redo stack empty
/// (the undone commit cannot be redone over it), as any recorded commit does.
@Suite struct UndoStackObserverReviewTests {
    @Test func aWriteRecordedByAnObserverDuringUndoClearsRedo() throws {
        let t = try TemporaryStore()
        let ada = ref("person/ada"), log = ref("log/1")
        try t.store.insert(["name": "Ada"], as: ada)
        try t.store.insert(["n": 0], as: log)
        let history = UndoStack(store: t.store)
        try history.write { try $0.setValue("B", forKey: "name", of: ada) }
        let token = try t.store.observe(ada, keyPath: "name", options: [.new]) { change in
            guard change.newValue == "Ada" else { return }
            try history.write { try $0.setValue(1, forKey: "n", of: log) }
        }
        try history.undo()
        #expect(try t.store.value(forKey: "n", of: log) == 1, "the observer ran")
        #expect(history.undoCommits.count == 1)
        #expect(history.redoCommits.isEmpty, "redo after a newer recorded edit: \(history.redoCommits)")
        _ = token
    }
}
