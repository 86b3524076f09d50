import Foundation
import Testing
import TestSupport
import LMDB
@testable import KVStore

/// `replay`, `verify` and `diff`, end to end through the executable.
@Suite(.tags(.subprocess), .skippedByTag) struct ReplayVerifyDiffTests {
    let dir: TestDirectory
    let a: String

    init() throws {
        dir = try TestDirectory()
        a = dir.path("a")
        try makeSource(dir, "a")
    }

    /// Changes the store's LMDB databases directly, as corruption would.
    func corrupt(_ name: String, _ body: (LMDB.Transaction, StoreDatabases) throws -> Void) throws {
        try dir.withStore(name) { store in try store.environment.write { txn in try body(txn, store.databases) } }
    }

    @Test func replayUntilASequenceOrATimeGivesTheDumpTakenThen() throws {
        let journal = try dir.succeed("journal", "list", a).objects()
        var dumps: [String] = []
        var index = 0
        for cut in [1, 4, 7, 12] {  // commit ends (entries 11 and 12 are one commit)
            index += 1
            let sequence = String(cut)
            try dir.succeed("replay", a, "--into", dir.path("seq\(index)"), "--until", sequence)
            let time = try #require(journal[cut - 1]["timestamp"])
            let iso = String(TypedJSON.string(from: time).dropFirst(10).dropLast(2))
            let replayed = try dir.succeed("replay", a, "--into", dir.path("time\(index)"), "--until-time", iso)
            #expect(replayed.lines == ["replayed \(cut) entries (through sequence \(cut)) into \(dir.path("time\(index)"))"])
            dumps.append(try dir.succeed("dump", dir.path("seq\(index)")).stdout)
            #expect(try dir.succeed("dump", dir.path("time\(index)")).stdout == dumps.last!)
        }
        #expect(Set(dumps).count == dumps.count)
        #expect(dumps.last == (try dir.succeed("dump", a).stdout))
        // The dump after entry 4, computed from the journal entries: Ada's latitude was just set.
        #expect(dumps[1].contains(#""geo":{"lat":48.8}"#) && !dumps[0].contains(#""id":"bob""#) && dumps[1].contains(#""alive":false"#))
        #expect(!dumps[2].contains("alive") && !dumps[2].contains("note") && dumps[2].contains(#""tags":["poet"]"#))
    }

    @Test func replayRefusesAUsedTargetATruncatedJournalAndBadLimits() throws {
        try dir.succeed("set", dir.path("used"), "x/1", "a", "1")
        try dir.fail("replay", a, "--into", dir.path("used"), with: "not empty")
        try dir.fail("replay", a, "--into", dir.path("n"), "--until", "3", "--until-time", "2026-01-01T00:00:00Z", status: 64, with: "not both")
        try dir.fail("replay", a, "--into", dir.path("n"), "--until-time", "yesterday", with: "not an ISO 8601 time")
        try corrupt("a") { txn, db in _ = try txn.delete(StoreLayout.sequenceKey(1), in: db.journal) }
        try dir.fail("replay", a, "--into", dir.path("n"), with: "journal was truncated (it starts at sequence 2)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("n")))
    }

    @Test func verifyIsHealthyOrListsEachProblem() throws {
        let healthy = try dir.succeed("verify", a)
        #expect(healthy.lines.count == 1 && healthy.stdout.hasPrefix("healthy: 2 records of 1 kind; journal 1…12 (12 entries); replay matches"))
        try corrupt("a") { txn, db in
            try txn.put(StoreLayout.recordKey(try RecordRef("person/ada")), [1, 9, 9, 9], in: db.records)
            _ = try txn.delete(StoreLayout.sequenceKey(5), in: db.journal)
            try txn.put(StoreLayout.MetaKey.count("person"), StoreLayout.uint64(7), in: db.meta)
        }
        let broken = try dir.kvstore("verify", a)
        #expect(broken.status == 1 && broken.stderr.isEmpty, "\(broken)")
        #expect(broken.lines.count == 4)
        #expect(broken.lines[0].hasPrefix("record person/ada does not decode"))
        #expect(broken.lines[1] == "the counter of kind person says 7 records, but 2 exist")
        #expect(broken.lines[2] == "the journal has a gap: entry 5 is missing")
        #expect(broken.lines[3].hasPrefix("3 problems: 2 records of 1 kind; journal 1…12 (11 entries); replay not checked (the journal has problems)"))
        try dir.fail("verify", dir.path("nothing"), status: 2, with: "no store here")
    }

    @Test func verifyComparesTheRecordsWithAReplayOfTheJournal() throws {
        try corrupt("a") { txn, db in
            try txn.put(StoreLayout.recordKey(try RecordRef("person/bob")), RecordCodec.encode(["name": "Eve"]), in: db.records)
        }
        let result = try dir.kvstore("verify", a)
        #expect(result.status == 1)
        #expect(result.lines.first == #"record person/bob holds "Eve" at 'name', but replaying the journal gives "Robert""#)
    }

    @Test func diffListsRecordsOnlyInOneAndKeysThatDiffer() throws {
        try dir.export(a, to: "a.stream")
        try dir.succeed("journal", "apply", dir.path("b"), dir.path("a.stream"))
        #expect(try dir.succeed("diff", a, dir.path("b")).stdout.isEmpty)
        try dir.succeed("promote", dir.path("b"))  // an applied store is a replica: make it writable
        try dir.succeed("set", dir.path("b"), "person/bob", "name", #""Bob""#)
        try dir.succeed("set", dir.path("b"), "person/bob", "age", "40")
        try dir.succeed("set", dir.path("b"), "place/paris", "name", #""Paris""#)
        try dir.succeed("set", a, "animal/cat", "name", #""Tom""#)
        let diff = try dir.kvstore("diff", a, dir.path("b"))
        #expect(diff.status == 1 && diff.stderr.isEmpty)
        #expect(diff.lines == [
            "only in A: animal/cat",
            "differs: person/bob age: A (absent) B 40",
            #"differs: person/bob name: A "Robert" B "Bob""#,
            "only in B: place/paris",
        ])
        try dir.fail("diff", a, dir.path("nothing"), status: 2, with: "no store here")
        try dir.fail("diff", a, status: 64, with: "Missing expected argument")
    }
}
