import Foundation
import Testing
import TestSupport

/// The progress bar of `load` and `dump`: drawn on standard error when it is a terminal (here a
/// pseudo-terminal that util-linux's `script` provides), absent otherwise.
@Suite(.tags(.subprocess), .skippedByTag) struct ProgressTests {
    /// Runs `command` in a shell whose standard error is a pseudo-terminal; returns what the
    /// terminal showed (standard output is redirected away from it by `command`).
    private func onTerminal(_ command: String) throws -> String {
        let result = try #require(try runExternalTool("/usr/bin/script", ["-qec", command, "/dev/null"]),
                                  "util-linux's script is needed to give the tool a terminal")
        #expect(result.status == 0, "\(result.output)")
        return result.output
    }

    private func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }

    @Test func loadAndDumpDrawABarOnATerminalAndNothingOtherwise() throws {
        let dir = try TestDirectory()
        let executable = try #require(KVStoreExecutable.url).path
        let input = try dir.write((1...300).map { #"{"kind":"n","id":"\#($0)","values":{}}"# }.joined(separator: "\n"), to: "in.jsonl")
        let store = dir.path("store")

        let loading = try onTerminal("\(quoted(executable)) load \(quoted(store)) \(quoted(input))")
        #expect(loading.contains("loading "), "\(loading)")
        #expect(loading.contains("loading [========================] 100% 300/300 lines"), "\(loading)")
        #expect(loading.contains("/s"), "\(loading)")
        #expect(loading.contains("\u{1B}[K"), "the bar redraws its line: \(loading)")

        let dumping = try onTerminal("\(quoted(executable)) dump \(quoted(store)) > /dev/null")
        #expect(dumping.contains("dumping [========================] 100% 300/300 records"), "\(dumping)")

        // Not a terminal: nothing but the output.
        let piped = try dir.succeed("dump", store)
        #expect(piped.stderr.isEmpty && piped.lines.count == 300)
        #expect(try dir.succeed("load", dir.path("other"), input).stdout.isEmpty)
    }

    /// When the records go to the terminal too, dump draws no bar: it was glued to the records
    /// (`… 581s left{"kind":…`) and redrawn between them.
    @Test func dumpToTheTerminalDrawsNoBar() throws {
        let dir = try TestDirectory()
        let executable = try #require(KVStoreExecutable.url).path
        let store = dir.path("store")
        try dir.succeed("load", store, dir.write((1...300).map { #"{"kind":"n","id":"\#($0)","values":{}}"# }.joined(separator: "\n"), to: "in.jsonl"))
        let shown = try onTerminal("\(quoted(executable)) dump \(quoted(store))")
        #expect(!shown.contains("dumping"), "\(shown)")
        #expect(shown.contains(#"{"kind":"n","id":"99","values":{}}"#), "\(shown)")
    }

    @Test func aFailureClearsTheBarAndLeavesTheErrorLine() throws {
        let dir = try TestDirectory()
        let executable = try #require(KVStoreExecutable.url).path
        let input = try dir.write(#"{"kind":"n","id":"1","values":{}}"# + "\n{bad", to: "in.jsonl")
        let shown = try onTerminal("\(quoted(executable)) load \(quoted(dir.path("store"))) \(quoted(input)); true")
        #expect(shown.contains("kvstore: line 2, column 2"), "\(shown)")
    }
}
