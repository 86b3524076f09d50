import Foundation
import Testing
import TestSupport

/// Damaged pages in a store's file, end to end: `verify` lists each damaged page and exits 1;
/// every other command either works (LMDB read around the damage) or ends with one line
/// pointing to `kvstore verify` and a non-zero status — never a signal, never a backtrace (before,
/// LMDB's assertions and faults killed `dump`, `value`, `verify` and `diff`).
@Suite(.tags(.subprocess), .skippedByTag) struct PageDamageCommandTests {
    /// A store (built with `load`) whose `records` and `journal` trees have depth ≥ 2, with one
    /// value in overflow pages and a free-page list from a second commit.
    static func makeStore(at path: String, in dir: TestDirectory) throws {
        var lines = (0..<400).map { #"{"kind":"person","id":"p\#(String(format: "%04d", $0))","values":{"name":"\#(String(repeating: "x", count: 100))","n":\#($0)}}"# }
        lines.append(#"{"kind":"person","id":"zbig","values":{"blob":"\#(String(repeating: "y", count: 20_000))"}}"#)
        let load = try dir.kvstore(["load", path], input: lines.joined(separator: "\n") + "\n")
        #expect(load.status == 0, "\(load)")
        try dir.succeed("set", path, "person/p0001", "n", "2")
    }

    /// The commands that read a store, with `GOOD` an undamaged copy for `diff`.
    static let readers: [[String]] = [
        ["dump", "BAD"], ["value", "BAD", "person", "@sum.n"], ["get", "BAD", "person/p0100"], ["diff", "BAD", "GOOD"],
    ]

    @Test(arguments: PageDamage.allCases)
    func verifyNamesThePageAndOtherCommandsEndInOneLine(_ damage: PageDamage) throws {
        let dir = try TestDirectory()
        let good = dir.path("good"), bad = dir.path("bad")
        try Self.makeStore(at: good, in: dir)
        try FileManager.default.copyItem(atPath: good, toPath: bad)
        var map = try DataFileMap(path: bad + "/data.mdb")
        let expected = try damage.apply(to: &map)
        try map.save()

        let verify = try dir.kvstore("verify", bad)
        #expect(!verify.signalled && verify.status == 1 && verify.stderr.isEmpty, "\(damage): \(verify)")
        let first = verify.lines.first ?? ""
        #expect(first.contains(expected.says) && (expected.page.map { first.hasPrefix("page \($0) of ") } ?? true), "\(damage): \(verify)")
        #expect(verify.lines.last?.contains("damaged pages in ") == true, "\(damage): \(verify)")

        for command in Self.readers {
            let arguments = command.map { ["BAD": bad, "GOOD": good][$0] ?? $0 }
            let result = try KVStoreExecutable.run(arguments, in: dir)
            Self.expectWorkedOrOneLine(result, "\(damage): \(command[0])", store: bad, diff: command[0] == "diff")
        }
    }

    /// A command's outcome on a damaged store: success (for `diff`, also status 1: differences), or
    /// one line pointing to `kvstore verify` and the command's error status; never a signal.
    static func expectWorkedOrOneLine(_ result: CommandResult, _ what: String, store: String, diff: Bool = false,
                                      sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!result.signalled, "\(what): \(result)", sourceLocation: sourceLocation)
        if result.status == 0 || diff && result.status == 1 {
            #expect(result.stderr.isEmpty, "\(what): \(result)", sourceLocation: sourceLocation)
            return
        }
        #expect(result.status == (diff ? 2 : 1), "\(what): \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("kvstore: ") && result.stderr.filter { $0 == "\n" }.count == 1,
                "\(what): one line: \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains("kvstore verify \(store)") || result.stderr.contains("kvstore verify` on each"),
                "\(what): \(result)", sourceLocation: sourceLocation)
    }

    /// 16 random bytes written at a random offset of a copy of the store, 200 times: `verify` and
    /// `dump` never die of a signal (before, about one run in 40 did), and each ends as above.
    @Test func randomDamageNeverKillsACommand() throws {
        let dir = try TestDirectory()
        let good = dir.path("good"), bad = dir.path("bad")
        try Self.makeStore(at: good, in: dir)
        let original = try Data(contentsOf: URL(fileURLWithPath: good + "/data.mdb"))
        var random = SeededRandom(42)
        for run in 0..<200 {
            try? FileManager.default.removeItem(atPath: bad)
            try FileManager.default.createDirectory(atPath: bad, withIntermediateDirectories: false)
            var bytes = original
            let offset = Int(random.next() % UInt64(bytes.count - 16))
            for index in 0..<16 { bytes[offset + index] = UInt8(truncatingIfNeeded: random.next()) }
            try bytes.write(to: URL(fileURLWithPath: bad + "/data.mdb"))
            let what = "run \(run), offset \(offset)"
            let verify = try dir.kvstore("verify", bad)
            #expect(!verify.signalled, "\(what): \(verify)")
            // 0 healthy (damage in a value's unused bytes), 1 problems, 2 not a store any more.
            #expect(verify.status == 0 || verify.status == 1 || verify.status == 2 && verify.stderr.filter { $0 == "\n" }.count == 1,
                    "\(what): \(verify)")
            let dump = try KVStoreExecutable.run(["dump", bad], in: dir, output: dir.outputs.appendingPathComponent("dump"))
            #expect(!dump.signalled, "\(what): \(dump)")
            #expect(dump.status == 0 || dump.stderr.hasPrefix("kvstore: ") && dump.stderr.filter { $0 == "\n" }.count == 1,
                    "\(what): \(dump)")
        }
    }
}
