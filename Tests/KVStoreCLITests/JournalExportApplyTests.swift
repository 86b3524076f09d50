import Foundation
import KVStore
import LMDB
import Testing
import TestSupport
@testable import KVStore

/// `journal export` and `journal apply`, end to end through the executable.
@Suite(.tags(.subprocess), .skippedByTag) struct JournalExportApplyTests {
    let dir: TestDirectory
    let a: String

    init() throws {
        dir = try TestDirectory()
        a = dir.path("a")
        try makeSource(dir, "a")
    }

    @Test func anAppliedExportHoldsTheSameRecords() throws {
        try dir.export(a, to: "a.stream")
        let applied = try dir.succeed("journal", "apply", dir.path("b"), dir.path("a.stream"))
        let entries = try dir.succeed("journal", "list", a).lines.count
        #expect(applied.lines == ["applied \(entries) entries, skipped 0; source \(try dir.withStore("a") { $0.id.uuidString.lowercased() }) applied through \(entries)"])
        #expect(try dir.succeed("diff", a, dir.path("b")).stdout.isEmpty)
        #expect(try dir.succeed("dump", a).stdout == dir.succeed("dump", dir.path("b")).stdout)
        try dir.succeed("verify", dir.path("b"))
    }

    /// Every listed entry carries its stamp as text (`"<wall ms>.<counter>"`: the packed int
    /// passes 2^53), increasing, and an applied export keeps the source's stamps.
    @Test func entriesCarryTheirStampsThroughExportAndApply() throws {
        let stamps = { (path: String) in try dir.succeed("journal", "list", path).objects().map { $0["stamp"] } }
        let source = try stamps(a)
        let times = source.compactMap { $0?.stringValue.flatMap(HybridTime.init(jsonText:)) }
        #expect(times.count == source.count && !times.isEmpty && zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect(times.allSatisfy { $0.wall > 1_700_000_000_000 && $0.wall < 2_000_000_000_000 })
        try dir.export(a, to: "a.stream")
        try dir.succeed("journal", "apply", dir.path("b"), dir.path("a.stream"))
        #expect(try stamps(dir.path("b")) == source)
    }

    /// An apply killed while it created the store leaves only the creation's hidden building
    /// directory (the store is built there and linked in whole): applying again makes the store.
    /// An empty data file or an empty environment is no interrupted creation: it is refused like
    /// any damaged store, never replaced by a new one.
    @Test func anApplyKilledWhileCreatingTheStoreCanBeRunAgain() throws {
        try dir.export(a, to: "a.stream")
        let entries = try dir.succeed("journal", "list", a).lines.count
        let leftover = dir.path("killed/.kvstore-creating-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: leftover, withIntermediateDirectories: true)
        _ = try Environment.open(path: leftover)
        let applied = try dir.succeed("journal", "apply", dir.path("killed"), dir.path("a.stream"))
        #expect(applied.stdout.hasPrefix("applied \(entries) entries, skipped 0"))
        #expect(try dir.succeed("diff", a, dir.path("killed")).stdout.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path("killed")).sorted() == ["data.mdb", "lock.mdb"])

        try FileManager.default.createDirectory(atPath: dir.path("empty-file"), withIntermediateDirectories: true)
        try dir.write([], to: "empty-file/data.mdb")
        try FileManager.default.createDirectory(atPath: dir.path("empty-environment"), withIntermediateDirectories: true)
        _ = try Environment.open(path: dir.path("empty-environment"))
        try FileManager.default.createDirectory(atPath: dir.path("other"), withIntermediateDirectories: true)
        let other = try Environment.open(path: dir.path("other"))
        try other.write { try $0.put(Array("k".utf8), Array("v".utf8), in: $0.mainDatabase()) }
        for name in ["empty-file", "empty-environment", "other"] {
            try dir.fail("journal", "apply", dir.path(name), dir.path("a.stream"), with: "\(dir.path(name)): not a kvstore store")
        }
    }

    @Test func applyingTwiceChangesNothing() throws {
        try dir.export(a, to: "a.stream")
        try dir.succeed("journal", "apply", dir.path("b"), dir.path("a.stream"))
        let before = try dir.snapshot(dir.path("b"))
        let again = try dir.succeed("journal", "apply", dir.path("b"), dir.path("a.stream"))
        #expect(again.stdout.hasPrefix("applied 0 entries, skipped "))
        #expect(try dir.snapshot(dir.path("b")) == before)
    }

    @Test func aLaterExportSinceTheLastAppliedContinuesAndStandardInputWorks() throws {
        try dir.export(a, to: "first.stream")
        try dir.succeed("journal", "apply", dir.path("b"), dir.path("first.stream"))
        let next = try dir.succeed("journal", "list", a).lines.count + 1
        try dir.succeed("set", a, "person/bob", "name", #""Robert""#)
        try dir.succeed("rm", a, "person/ada", "friend")
        try dir.export(a, since: UInt64(next), to: "second.stream")
        let applied = try dir.kvstore(["journal", "apply", dir.path("b")], input: "second.stream", output: "apply.out")
        #expect(applied.status == 0 && applied.stderr.isEmpty, "\(applied)")
        #expect(try dir.succeed("diff", a, dir.path("b")).stdout.isEmpty)
    }

    @Test func aStreamStartingPastTheCheckpointIsRefusedAsAGap() throws {
        try dir.export(a, to: "first.stream")
        try dir.succeed("journal", "apply", dir.path("b"), dir.path("first.stream"))
        let last = UInt64(try dir.succeed("journal", "list", a).lines.count)
        try dir.succeed("set", a, "person/bob", "x", "1")
        try dir.succeed("set", a, "person/bob", "x", "2")
        try dir.export(a, since: last + 2, to: "gapped.stream")
        let before = try dir.snapshot(dir.path("b"))
        try dir.fail("journal", "apply", dir.path("b"), dir.path("gapped.stream"), with: "source entry \(last + 1) is missing")
        #expect(try dir.snapshot(dir.path("b")) == before)
        try dir.fail("journal", "apply", dir.path("new"), dir.path("gapped.stream"), with: "is a new store, but the stream starts at \(last + 2)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("new")))
    }

    @Test func aCorruptTruncatedOrForeignStreamChangesNothing() throws {
        try dir.export(a, to: "a.stream")
        let bytes = try dir.bytes("a.stream")
        try dir.succeed("set", dir.path("b"), "person/zed", "name", #""Zed""#)
        let before = try dir.snapshot(dir.path("b"))
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0x01
        try dir.write(flipped, to: "flipped.stream")
        try dir.write(Array(bytes.dropLast(7)), to: "short.stream")
        try dir.write(Array(#"{"kind":"person"}"#.utf8), to: "text.stream")
        try dir.fail("journal", "apply", dir.path("b"), dir.path("flipped.stream"), with: "fails its checksum")
        try dir.fail("journal", "apply", dir.path("b"), dir.path("flipped.stream"), with: "journal stream: frame ")
        try dir.fail("journal", "apply", dir.path("b"), dir.path("short.stream"), with: "cut short")
        try dir.fail("journal", "apply", dir.path("b"), dir.path("text.stream"), with: "not a kvstore journal stream")
        try dir.fail("journal", "apply", dir.path("b"), dir.path("missing.stream"), with: "missing.stream: cannot open")
        #expect(try dir.snapshot(dir.path("b")) == before)
        try dir.fail("journal", "apply", dir.path("new"), dir.path("flipped.stream"), with: "fails its checksum")
        #expect(!FileManager.default.fileExists(atPath: dir.path("new")))
        try dir.fail("journal", "apply", a, dir.path("a.stream"), with: "a store cannot replicate itself")
        try dir.fail("journal", "export", dir.path("nothing"), with: "no store here")
    }

    /// A stream that cannot be written (a full disk) is an error, not a truncated stream and exit 0.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func anExportThatCannotWriteItsStreamFails() throws {
        let (status, stderr) = try dir.runWritingToAFullDisk(["journal", "export", a])
        #expect(status == 1, "\(stderr)")
        #expect(stderr.hasPrefix("kvstore: writing the stream to standard output failed: "), "\(stderr)")
        #expect(stderr.split(separator: "\n").count == 1, "\(stderr)")
    }

    @Test func aReplicaThatDivergedIsRefusedAndUnchanged() throws {
        try dir.export(a, to: "a.stream")
        try dir.succeed("set", dir.path("b"), "person/ada", "name", #""Someone else""#)
        let before = try dir.snapshot(dir.path("b"))
        try dir.fail("journal", "apply", dir.path("b"), dir.path("a.stream"), with: "diverged at source sequence 1 (recordInserted of person/ada): person/ada to insert already exists")
        #expect(try dir.snapshot(dir.path("b")) == before)
    }

    @Test func aChainOfReplicasKeepsTheOriginalOrigin() throws {
        try dir.export(a, to: "a.stream")
        try dir.succeed("journal", "apply", dir.path("b"), dir.path("a.stream"))
        try dir.export(dir.path("b"), to: "b.stream")
        try dir.succeed("journal", "apply", dir.path("c"), dir.path("b.stream"))
        #expect(try dir.succeed("diff", a, dir.path("c")).stdout.isEmpty)
        let aID = try dir.withStore("a") { $0.id.uuidString.lowercased() }
        let origins = try dir.succeed("journal", "list", dir.path("c")).objects().map { $0["origin"] }
        let sequences = try dir.succeed("journal", "list", a).objects().map { $0["sequence"] }
        #expect(origins == sequences.map { ["store": .string(aID), "sequence": $0!] })
    }
}
