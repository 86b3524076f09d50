import Foundation
import KVStore
import Testing
import TestSupport

/// What one run of the `kvstore` executable produced.
struct CommandResult: CustomStringConvertible {
    let status: Int32
    let stdout: String
    let stderr: String
    /// Whether the process died of a signal (`status` is then the signal's number).
    var signalled = false

    /// The lines of standard output (without the final newline).
    var lines: [String] {
        stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Each line of standard output parsed as a typed JSON object.
    func objects() throws -> [[String: Value]] {
        try lines.map { try TypedJSON.dictionary(from: $0) }
    }

    var description: String { "\(signalled ? "signal" : "exit") \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
}

/// The built `kvstore` executable, run as a subprocess the way a script runs it (after
/// swift-argument-parser's `AssertExecuteCommand`).
enum KVStoreExecutable {
    /// The executable: next to the test bundle in the build products directory, or, as a fallback,
    /// in a `.build*/debug` directory of the package.
    static let url: URL? = locate()

    private static func locate() -> URL? {
        var directories = [Bundle.main.bundleURL]
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        if let runner = CommandLine.arguments.first {
            directories.append(URL(fileURLWithPath: runner).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        if let found = directories.map({ $0.appendingPathComponent("kvstore") }).first(where: isExecutableFile) {
            return found
        }
        let builds = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot.path)) ?? []
        return builds.filter { $0.hasPrefix(".build") }.sorted()
            .map { packageRoot.appendingPathComponent($0).appendingPathComponent("debug/kvstore") }
            .first(where: isExecutableFile)
    }

    private static func isExecutableFile(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            && !isDirectory.boolValue && FileManager.default.isExecutableFile(atPath: url.path)
    }

    /// Runs `kvstore arguments…` in `directory`, capturing its output through files there.
    /// With `input`, standard input reads that file; with `output`, standard output goes to that
    /// file (binary output) and the result's `stdout` is empty. With `launcher` (a program and its
    /// arguments, such as `setpriv --reuid=…`), that program runs the executable. With `piped`,
    /// standard input is a pipe those bytes are written to (by another thread) and then closed.
    /// `environment` adds to (or replaces) the test process's environment variables.
    static func run(
        _ arguments: [String], in directory: TestDirectory, input: URL? = nil, output: URL? = nil, launcher: [String] = [],
        piped: Data? = nil, environment: [String: String] = [:]
    ) throws -> CommandResult {
        let executable = try #require(url, "the kvstore executable was not found next to the tests")
        let id = UUID().uuidString
        let outURL = output ?? directory.outputs.appendingPathComponent("\(id).out")
        let errURL = directory.outputs.appendingPathComponent("\(id).err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = launcher.first.map(URL.init(fileURLWithPath:)) ?? executable
        process.arguments = launcher.dropFirst() + (launcher.isEmpty ? [] : [executable.path]) + arguments
        process.currentDirectoryURL = directory.url
        process.standardInput = try input.map(FileHandle.init(forReadingFrom:)) ?? FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let pipe = piped.map { _ in Pipe() }
        if let pipe { process.standardInput = pipe }
        try process.run()
        if let pipe, let piped {
            try pipe.fileHandleForReading.close()
            let writer = pipe.fileHandleForWriting
            // The command may stop reading early (an error): a write to the closed pipe then fails
            // with EPIPE, which must not end the test process with SIGPIPE.
            signal(SIGPIPE, SIG_IGN)
            Thread.detachNewThread {
                try? writer.write(contentsOf: piped)
                try? writer.close()
            }
        }
        process.waitUntilExit()
        try out.close()
        try err.close()
        return CommandResult(
            status: process.terminationStatus,
            stdout: output == nil ? try String(contentsOf: outURL, encoding: .utf8) : "",
            stderr: try String(contentsOf: errURL, encoding: .utf8),
            signalled: process.terminationReason == .uncaughtSignal)
    }
}

/// A fresh directory for one test, removed when the test is done with it. Stores go in it;
/// captured output goes in a sibling directory, so a store directory holds only the store.
final class TestDirectory {
    /// Holds both directories, and removes them when the test is done.
    private let base: TemporaryDirectory
    let url: URL
    let outputs: URL

    init() throws {
        base = try TemporaryDirectory()
        url = URL(fileURLWithPath: base.path("work"))
        outputs = URL(fileURLWithPath: base.path("output"))
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: false)
    }

    /// The absolute path of `name` in the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Runs `kvstore arguments…` here.
    @discardableResult
    func kvstore(_ arguments: String...) throws -> CommandResult {
        try KVStoreExecutable.run(arguments, in: self)
    }

    /// Runs `kvstore arguments…` here and expects success with nothing on standard error.
    @discardableResult
    func succeed(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
        try succeed(arguments, sourceLocation: sourceLocation)
    }

    /// Runs `kvstore` with `arguments` here and expects success with nothing on standard error.
    @discardableResult
    func succeed(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
        let result = try KVStoreExecutable.run(arguments, in: self)
        #expect(result.status == 0, "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.isEmpty, "\(arguments): \(result)", sourceLocation: sourceLocation)
        return result
    }

    /// The store's records and journal, as `dump` and `journal list` print them: compare two
    /// snapshots to prove a command changed nothing.
    func snapshot(_ store: String) throws -> String {
        let records = try KVStoreExecutable.run(["dump", store], in: self)
        let journal = try KVStoreExecutable.run(["journal", "list", store], in: self)
        return "\(records)\n\(journal)"
    }
}
