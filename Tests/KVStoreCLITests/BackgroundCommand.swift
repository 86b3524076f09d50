import Foundation
import Testing
import TestSupport

/// A `kvstore` process left running in the background — `journal list --follow` — whose standard
/// output the test reads line by line while it writes to the store, then stops.
///
/// ```swift
/// let follower = try BackgroundCommand(["journal", "list", store, "--follow"], in: dir)
/// try dir.succeed("set", store, "person/ada", "age", "36")
/// let lines = follower.waitForLines(1)
/// let status = follower.stop()   // SIGTERM, then the exit status
/// ```
final class BackgroundCommand: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()
    private let errorURL: URL
    private let lock = NSLock()
    private var received: [UInt8] = []
    private let reader = DispatchSemaphore(value: 0)

    /// Starts `kvstore arguments…` in `directory`. With `readingOutput` false, nothing reads its
    /// standard output until ``readOnce()`` (or another command reads it: ``standardOutput``).
    /// With `input`, standard input reads that handle (another command's ``standardOutput``: a pipe).
    init(_ arguments: [String], in directory: TestDirectory, readingOutput: Bool = true, input: FileHandle? = nil) throws {
        let executable = try #require(KVStoreExecutable.url, "the kvstore executable was not found next to the tests")
        errorURL = directory.outputs.appendingPathComponent("\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory.url
        process.standardInput = input ?? FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        guard readingOutput else { reader.signal(); return }
        let handle = output.fileHandleForReading
        Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                self.lock.withLock { self.received += data }
            }
            self.reader.signal()
        }.start()
    }

    /// The bytes printed so far (binary output such as a journal stream).
    var bytes: [UInt8] { lock.withLock { received } }

    /// The complete lines printed so far.
    var lines: [String] {
        lock.withLock {
            String(decoding: received, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .dropLast().map(String.init)
        }
    }

    /// Waits until at least `count` lines were printed, or the process ended, or a minute passed.
    @discardableResult
    func waitForLines(_ count: Int) -> [String] {
        waitUntil { lines.count >= count || !process.isRunning }
        return lines
    }

    /// Whether the process has not ended yet.
    var isRunning: Bool { process.isRunning }

    /// Whether the process ended by a signal (`stop`'s status is then the signal's number), not
    /// by exiting: tell a SIGKILL from an `exit(9)`.
    var endedBySignal: Bool { !process.isRunning && process.terminationReason == .uncaughtSignal }

    /// Sends `signal` without waiting (SIGSTOP / SIGCONT pause and resume the process).
    func send(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Sends `signal` (SIGTERM by default) and returns the exit status once the process ended.
    func stop(signal: Int32 = SIGTERM) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        return waitForExit()
    }

    /// Waits (at most a minute) for the process to end by itself; returns its exit status, or -1
    /// when it was still running (it is then killed).
    func waitForExit() -> Int32 {
        if !waitUntil({ !process.isRunning }) {
            process.terminate()
            process.waitUntilExit()
            return -1
        }
        process.waitUntilExit()
        _ = reader.wait(timeout: .now() + 10)
        return process.terminationStatus
    }

    /// Reads what standard output has (waiting for something), without a reading thread.
    func readOnce() -> String {
        String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
    }

    /// The reading end of standard output, to pipe it into another command (`export | apply`;
    /// only when made with `readingOutput` false).
    var standardOutput: FileHandle { output.fileHandleForReading }

    /// Closes the reading end of standard output, as `| head -1` does once it has its line (only
    /// when made with `readingOutput` false).
    func closeOutput() {
        try? output.fileHandleForReading.close()
    }

    /// What the process wrote on standard error.
    var stderr: String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }
}
