import Foundation
import Testing
import TestSupport
@testable import KVStore

/// `journal export --follow`: an open-ended stream that keeps up with new commits.
@Suite(.tags(.subprocess), .skippedByTag) struct JournalExportFollowTests {
    let dir: TestDirectory
    let a: String

    init() throws {
        dir = try TestDirectory()
        a = dir.path("a")
        try makeSource(dir, "a")
    }

    /// The entries a (possibly unfinished) stream delivers as whole commits.
    private func deliveredEntries(_ bytes: [UInt8]) -> [JournalEntry] {
        guard let reader = try? JournalStreamReader(bytes: bytes) else { return [] }
        var entries: [JournalEntry] = []
        while let commit = try? reader.nextCommit() { entries += commit }
        return entries
    }

    @Test func followingWritesNewCommitsAsTheyCommitAndEndsTheStreamOnSIGTERM() throws {
        let initial = try dir.succeed("journal", "list", a).lines.count
        let export = try BackgroundCommand(["journal", "export", a, "--follow"], in: dir)
        #expect(waitUntil { deliveredEntries(export.bytes).count == initial }, "\(export.stderr)")

        try dir.succeed("set", a, "person/bob", "name", #""Bobby""#)
        try dir.withStore("a") { store in
            try store.write { txn in   // one commit of three entries: never split in the stream
                try txn.setValue(1, forKey: "x", of: RecordRef("person/bob"))
                try txn.setValue(2, forKey: "y", of: RecordRef("person/bob"))
                try txn.delete(RecordRef("person/ada"))
            }
        }
        #expect(waitUntil { deliveredEntries(export.bytes).count == initial + 4 }, "\(export.stderr)")
        #expect(export.stop() == 0, "\(export.stderr)")
        #expect(export.stderr.isEmpty)

        let reader = try JournalStreamReader(bytes: export.bytes)
        #expect(reader.header.lastSequence == nil)   // open-ended
        var commits: [[JournalEntry]] = []
        while let commit = try reader.nextCommit() { commits.append(commit) }   // ends with its end frame
        #expect(commits.last?.count == 3)
        #expect(commits.flatMap { $0 }.map(\.sequence) == Array(1...UInt64(initial + 4)))

        try dir.write(export.bytes, to: "live.stream")
        try dir.succeed("journal", "apply", dir.path("b"), dir.path("live.stream"))
        #expect(try dir.succeed("diff", a, dir.path("b")).stdout.isEmpty)
    }

    @Test func applyReadingAFollowExportFromAPipeAppliesEachCommitAsItArrives() throws {
        // kvstore journal export a --follow | kvstore journal apply b
        let b = dir.path("b")
        let export = try BackgroundCommand(["journal", "export", a, "--follow"], in: dir, readingOutput: false)
        let apply = try BackgroundCommand(["journal", "apply", b], in: dir, input: export.standardOutput)
        func caughtUp() -> Bool { (try? dir.kvstore("diff", a, b))?.status == 0 }
        #expect(waitUntil(caughtUp), "\(apply.stderr)")
        try dir.succeed("set", a, "person/bob", "name", #""Bobby""#)
        #expect(waitUntil(caughtUp), "\(apply.stderr)")
        #expect(try dir.succeed("get", b, "person/bob", "name").stdout == "\"Bobby\"\n")

        #expect(export.stop() == 0, "\(export.stderr)")
        #expect(apply.waitForExit() == 0, "\(apply.stderr)")
        let entries = try dir.succeed("journal", "list", a).lines.count
        #expect(apply.lines.last?.hasPrefix("applied \(entries) entries, skipped 0; source ") == true, "\(apply.lines)")
        #expect(try dir.succeed("verify", b).stdout.hasPrefix("healthy"))
    }

    @Test(.tags(.crash)) func applyReadingAFollowExportThatIsKilledKeepsTheCommitsItApplied() throws {
        let b = dir.path("b")
        let export = try BackgroundCommand(["journal", "export", a, "--follow"], in: dir, readingOutput: false)
        let apply = try BackgroundCommand(["journal", "apply", b], in: dir, input: export.standardOutput)
        #expect(waitUntil { (try? dir.kvstore("diff", a, b))?.status == 0 }, "\(apply.stderr)")
        _ = export.stop(signal: SIGKILL)   // no end frame
        #expect(apply.waitForExit() == 1)
        #expect(apply.stderr.hasPrefix("kvstore: journal stream: ") && apply.stderr.contains("the stream was cut short"), "\(apply.stderr)")
        #expect(try dir.succeed("diff", a, b).stdout.isEmpty)
        let last = try dir.succeed("journal", "list", a).lines.count
        let resumed = try BackgroundCommand(["journal", "export", a, "--since", "\(last + 1)"], in: dir, readingOutput: false)
        let again = try BackgroundCommand(["journal", "apply", b], in: dir, input: resumed.standardOutput)
        #expect(again.waitForExit() == 0, "\(again.stderr)")
        #expect(again.lines == ["applied 0 entries, skipped 0; source \(try dir.withStore("a") { $0.id.uuidString.lowercased() }) applied through \(last)"])
    }

    @Test(.tags(.crash)) func aLiveApplyCutBeforeItsFirstCommitLeavesNoNewStoreBehind() throws {
        try dir.withStore("quiet") { _ in }   // a source with nothing journaled: the export sends its header only
        let export = try BackgroundCommand(["journal", "export", dir.path("quiet"), "--follow"], in: dir, readingOutput: false)
        let apply = try BackgroundCommand(["journal", "apply", dir.path("new/nested/b")], in: dir, input: export.standardOutput)
        #expect(waitUntil { FileManager.default.fileExists(atPath: dir.path("new/nested/b/data.mdb")) }, "\(apply.stderr)")
        _ = export.stop(signal: SIGKILL)   // no end frame, no commit
        #expect(apply.waitForExit() == 1)
        #expect(apply.stderr.contains("the stream was cut short"), "\(apply.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("new")), "the store and the directories made for it are gone")
    }

    @Test func followingFromASequenceStartsThere() throws {
        let export = try BackgroundCommand(["journal", "export", a, "--since", "3", "--follow"], in: dir)
        try dir.succeed("set", a, "person/bob", "name", #""Bobby""#)
        let last = UInt64(try dir.succeed("journal", "list", a).lines.count)
        #expect(waitUntil { deliveredEntries(export.bytes).last?.sequence == last }, "\(export.stderr)")
        #expect(export.stop(signal: SIGINT) == 0)
        #expect(deliveredEntries(export.bytes).first?.sequence == 3)
    }
}
