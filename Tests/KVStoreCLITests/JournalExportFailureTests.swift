import Foundation
import Testing
import TestSupport
@testable import KVStore

/// `journal export --follow` truncated past while it follows: the stream ends with the error
/// frame, and the command exits non-zero with one line.
@Suite(.tags(.subprocess), .skippedByTag) struct JournalExportFailureTests {
    @Test func aFollowExportTruncatedPastEndsItsStreamWithTheErrorFrameAndFails() throws {
        let dir = try TestDirectory()
        let a = dir.path("a")
        try makeSource(dir, "a")
        // One commit of 5,000 entries (1.5 MB): the export's follower reads 1,000 at a time and
        // is held at its first batch by the pipe nobody reads yet.
        let last = try dir.withStore("a") { store in
            try store.write { txn in
                for i in 0..<5000 { try txn.insert(["text": .string(String(repeating: "x", count: 300))], as: RecordRef("blob/\(i)")) }
            }
            return try store.read { try $0.lastSequence() }
        }
        let export = try BackgroundCommand(["journal", "export", a, "--follow"], in: dir, readingOutput: false)
        let start = export.standardOutput.readData(ofLength: JournalStream.headerLength)   // it started at sequence 1
        try dir.withStore("a") { store in
            for i in 0..<3 { try store.insert(["n": .int(Int64(i))], as: RecordRef("late/\(i)")) }
            _ = try store.truncateJournal(before: last + 3, force: true)
        }

        let stream = Array(start + export.standardOutput.readDataToEndOfFile())
        #expect(export.waitForExit() == 1)
        // The follower read 1…1000 before the truncation (or, had it not polled yet, nothing).
        let expired = "cursor expired: a reader has read through sequence "
        #expect(export.stderr.hasPrefix("kvstore: \(a): \(expired)"), "\(export.stderr)")
        #expect(export.stderr.hasSuffix(" through \(last + 2) are gone\n") && export.stderr.filter { $0 == "\n" }.count == 1)
        let reader = try JournalStreamReader(bytes: stream)
        var entries = 0
        let error = #expect(throws: JournalStreamError.self) { while let commit = try reader.nextCommit() { entries += commit.count } }
        #expect(error?.code == .sourceInterrupted)
        #expect(error?.message.hasPrefix("the source stopped the stream: \(expired)") == true)
        #expect(UInt64(entries) == last - 5000)   // the source's first commits; the cut one is not handed out
    }
}
