import Foundation
import Testing
@testable import KVStore

/// `UndoStack`: LIFO undo and redo of the commits made through it.
@Suite struct UndoStackTests {
    let t: TemporaryStore
    let ada = ref("person/ada")

    init() throws {
        t = try TemporaryStore()
        try t.store.insert(["name": "Ada", "age": 36], as: ada)
    }

    private func name() throws -> Value? { try t.store.value(forKey: "name", of: ada) }

    @Test func undoesAndRedoesInLastInFirstOutOrder() throws {
        let history = UndoStack(store: t.store)
        try history.write { try $0.setValue("B", forKey: "name", of: ada) }
        try history.write { try $0.setValue("C", forKey: "name", of: ada) }
        try history.write { _ in }  // changed nothing: not recorded
        #expect(history.undoCommits.count == 2)
        try history.undo()
        #expect(try name() == "B")
        try history.undo()
        #expect(try name() == "Ada")
        #expect(!history.canUndo && history.redoCommits.count == 2)
        #expect(try history.undo() == nil)
        try history.redo()
        #expect(try name() == "B")
        try history.redo()
        #expect(try name() == "C")
        #expect(!history.canRedo && history.undoCommits.count == 2)
        try history.undo()
        #expect(try name() == "B")
    }

    @Test func aNewWriteClearsRedo() throws {
        let history = UndoStack(store: t.store)
        try history.write { try $0.setValue("B", forKey: "name", of: ada) }
        try history.undo()
        #expect(history.canRedo)
        try history.write { try $0.setValue(40, forKey: "age", of: ada) }
        #expect(!history.canRedo)
        #expect(try history.redo() == nil)
    }

    @Test func aConflictingLaterCommitRefusesUndoAndLeavesTheStacks() throws {
        let history = UndoStack(store: t.store)
        try history.write { try $0.setValue("B", forKey: "name", of: ada) }
        let recorded = history.undoCommits
        try t.store.setValue("Other", forKey: "name", of: ada)  // not through the stack
        let error = try #require(throws: RevertError.self) { try history.undo() }
        #expect(error.code == .conflict)
        #expect(history.undoCommits == recorded && !history.canRedo)
        #expect(try name() == "Other")
        try history.undo(force: true)
        #expect(try name() == "Ada")
        #expect(history.redoCommits.count == 1)
    }

    @Test func recordsChosenCommits() throws {
        let history = UndoStack(store: t.store)
        let commit = try #require(try t.store.write { txn in try txn.setValue("B", forKey: "name", of: ada); return txn.commitID })
        history.record(commit: commit)
        try history.undo()
        #expect(try name() == "Ada")
        history.removeAll()
        #expect(!history.canUndo && !history.canRedo)
    }

    @Test func concurrentUndosRevertDifferentCommits() async throws {
        let history = UndoStack(store: t.store)
        for age in 37...46 { try history.write { try $0.setValue(.int(Int64(age)), forKey: "age\(age)", of: ada) } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<10 { group.addTask { try history.undo() } }
            try await group.waitForAll()
        }
        #expect(try t.store.record(ada) == ["name": "Ada", "age": 36])
        #expect(history.redoCommits.count == 10)
    }
}
