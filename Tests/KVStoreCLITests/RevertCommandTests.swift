import Foundation
import KVStore
import Testing
import TestSupport

/// `kvstore revert PATH --commit N [--force]` end to end.
@Suite(.tags(.subprocess), .skippedByTag) struct RevertCommandTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)  // commit 1
        try dir.succeed("set", store, "person/ada", "tags", #"["math"]"#)  // commit 2
        try dir.succeed("rm", store, "person/ada")  // commit 3
    }

    private func dump() throws -> String { try dir.succeed("dump", store).stdout }

    @Test func revertWritesTheInverseAsANewCommitAndRevertingThatRedoes() throws {
        let revert = try dir.succeed("revert", store, "--commit", "3")
        #expect(revert.stdout == #"{"commit":4,"reverted":3}"# + "\n")
        #expect(try dir.succeed("get", store, "person/ada").stdout == #"{"name":"Ada","tags":["math"]}"# + "\n")
        let redo = try dir.succeed("revert", store, "--commit", "4")
        #expect(redo.stdout == #"{"commit":5,"reverted":4}"# + "\n")
        try dir.fail(["get", store, "person/ada"], says: "no such record")
    }

    @Test func aConflictIsOneLineNamingTheCommitRecordAndKeyUnlessForced() throws {
        let before = try dump()
        try dir.fail(["revert", store, "--commit", "1"],
                     says: "kvstore: cannot revert commit 1: commit 2 changed 'tags' of person/ada after it; --force reverts anyway")
        #expect(try dump() == before, "a refused revert changes nothing")
        try dir.succeed("revert", store, "--commit", "3")
        try dir.succeed("set", store, "person/ada", "name", #""Augusta""#)  // commit 5
        try dir.fail(["revert", store, "--commit", "4"], says: "commit 5 changed 'name' of person/ada after it")
        #expect(try dir.succeed("revert", store, "--commit", "4", "--force").stdout == #"{"commit":6,"reverted":4}"# + "\n")
        try dir.fail(["get", store, "person/ada"], says: "no such record")
    }

    @Test func unknownAndTruncatedCommitsAreOneLineErrors() throws {
        try dir.fail(["revert", store, "--commit", "9"], says: "cannot revert commit 9: no such commit: the journal's commits are 1 through 3")
        try dir.succeed("journal", "truncate", store, "--before", "3")
        try dir.fail(["revert", store, "--commit", "1"],
                     says: "cannot revert commit 1: its entries were truncated from the journal: the journal keeps sequences 3 through 3 (from commit 3 on)")
        let missing = try dir.kvstore("revert", store)
        #expect(missing.status == 64, "\(missing)")
    }

    @Test func aClosedKindRefusesTheInverse() throws {
        try dir.succeed("set", store, "note/1", "legacy", "true")  // commit 4
        try dir.succeed("rm", store, "note/1")  // commit 5
        try dir.succeed("kind", store, "note", "--closed", "--key", "text:string")
        try dir.fail(["revert", store, "--commit", "5"], says: "legacy")
    }
}
