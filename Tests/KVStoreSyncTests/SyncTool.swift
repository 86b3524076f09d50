import Foundation
import Testing
import TestSupport

/// The built `kvstore` executable, run as a subprocess.
enum SyncTool {
    /// Next to the test bundle (`.build/debug/kvstore`).
    static let path: String? = {
        let directories = Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }.map { $0.bundleURL.deletingLastPathComponent() }
            + [URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()]
        return directories.map { $0.appendingPathComponent("kvstore").path }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// A started `kvstore ARGUMENTS`, its output going to files in `directory`.
    static func start(_ arguments: [String], in directory: TemporaryDirectory) throws -> (Process, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(path, "the kvstore executable was not found next to the tests"))
        process.arguments = arguments
        let id = UUID().uuidString
        let (out, err) = (directory.path("\(id).out"), directory.path("\(id).err"))
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try process.run()
        return (process, out, err)
    }

    /// Runs `kvstore ARGUMENTS` to its end (on a thread of its own): exit status, stdout, stderr.
    /// A run still going after `timeout` seconds fails the test with the threads' stacks (from
    /// gdb, when it is installed) and is killed: a hang becomes a failure that says where.
    static func run(_ arguments: [String], in directory: TemporaryDirectory,
                    timeout: TimeInterval = 120) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await onOwnThread {
            let (process, out, err) = try start(arguments, in: directory)
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning {
                Issue.record("kvstore \(arguments) still ran after \(Int(timeout)) s; its threads:\n\(stacks(of: process.processIdentifier))")
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
            #expect(process.terminationReason == .exit, "kvstore \(arguments) died of a signal")
            return (process.terminationStatus, try String(contentsOfFile: out, encoding: .utf8), try String(contentsOfFile: err, encoding: .utf8))
        }
    }

    /// Every thread's backtrace of process `pid`, by gdb in batch mode (a line saying so when
    /// gdb is missing).
    private static func stacks(of pid: Int32) -> String {
        let gdb = ["/usr/bin/gdb", "/usr/local/bin/gdb"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let gdb else { return "(gdb is not installed)" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gdb)
        process.arguments = ["-p", "\(pid)", "-batch", "-ex", "thread apply all bt"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        guard (try? process.run()) != nil else { return "(gdb did not start)" }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }
}
