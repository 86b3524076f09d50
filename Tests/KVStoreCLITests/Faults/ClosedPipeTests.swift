import Foundation
import Testing
import TestSupport

/// A reader that closes its end of the pipe early (`kvstore dump S | head -1`): the tool's next
/// write fails with `EPIPE`. The tool died of `SIGPIPE` there (only `--follow` and `serve`
/// ignored it), against the rule that no command dies of a signal; now it ends quietly with
/// status 0 — its reader has what it wanted — and stops reading the store.
@Suite(.tags(.subprocess), .skippedByTag) struct ClosedPipeTests {
    static let commands: [[String]] = [
        ["dump", "STORE"], ["dump", "STORE", "--format", "table"], ["journal", "list", "STORE"],
        ["journal", "export", "STORE"], ["get", "STORE", "person/p0001"], ["stat", "STORE"],
    ]

    @Test(arguments: commands)
    func aClosedPipeEndsTheCommandWithoutASignal(_ command: [String]) throws {
        let dir = try TestDirectory()
        let store = dir.path("store")
        let lines = (0..<3000).map { #"{"kind":"person","id":"p\#(String(format: "%04d", $0))","values":{"name":"\#(String(repeating: "n", count: 200))"}}"# }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: dir.outputs.appendingPathComponent("in.jsonl"))
        try dir.succeed("load", store, dir.outputs.appendingPathComponent("in.jsonl").path)

        let executable = try #require(KVStoreExecutable.url)
        let process = Process()
        // With SIGPIPE's default action, as from a shell: the test process may ignore SIGPIPE
        // (other tests do), and a child inherits that.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal=PIPE", executable.path] + command.map { $0 == "STORE" ? store : $0 }
        let pipe = Pipe(), errors = Pipe()
        process.standardOutput = pipe
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The reader goes away before the command writes: its first write fails.
        try pipe.fileHandleForReading.close()
        try? pipe.fileHandleForWriting.close()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "\(command) died of signal \(process.terminationStatus)")
        #expect(process.terminationStatus == 0, "\(command): \(stderr)")
        #expect(stderr.isEmpty, "\(command): \(stderr)")
    }
}
