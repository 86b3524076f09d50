import KVStore
import LMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The tool's standard output, buffered: lines go out in large writes, so a dump of many records
/// costs few system calls. Call ``finish()`` when done: it reports a write that failed.
///
/// ```swift
/// let output = StandardOutput()
/// output.line(#"{"name":"Ada"}"#)
/// try output.finish()
/// ```
final class StandardOutput {
    private var buffer: [UInt8] = []
    private static let flushThreshold = 1 << 16
    /// The `errno` of the first write that failed (a full disk, an I/O error, a closed pipe);
    /// everything after it is dropped.
    private(set) var failure: Int32?

    /// Writes `text` and a newline.
    func line(_ text: String = "") {
        write(text)
        write("\n")
    }

    /// Writes `text` as it is.
    func write(_ text: String) {
        guard failure == nil else { return }
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.flushThreshold { flush() }
    }

    /// Writes each of `lines`, each followed by a newline.
    func lines(_ lines: [String]) {
        for text in lines { line(text) }
    }

    /// Writes what is buffered.
    func flush() {
        if failure == nil { failure = FileDescriptorOutput.writeAll(buffer, to: 1) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered, then throws when a write failed — so `kvstore dump > file` on a
    /// full disk fails instead of leaving a cut-short file behind with status 0. A closed pipe
    /// (`EPIPE`, e.g. `| head`) is not an error: its reader has what it wanted.
    func finish() throws {
        flush()
        if let failure, failure != EPIPE { throw Self.writeError(failure) }
    }

    /// The error for a write to standard output that failed with `failure` (an `errno`).
    static func writeError(_ failure: Int32) -> CommandError {
        CommandError("cannot write to standard output: \(String(cString: strerror(failure)))")
    }
}

/// The tool's standard error: where every failure is reported, as one line.
enum StandardError {
    /// Writes `kvstore: <message>` as a single line: line breaks in `message` become spaces, and
    /// other control characters (which come from input: ids, keys, file names) are written
    /// escaped, `\x1B` or `\u{9B}`, so that none reaches the terminal (an ESC starts a terminal
    /// command; a NUL cuts the line for some readers), and so are the bidirectional controls
    /// (`\u{202E}`: they reorder what the terminal shows, so a line could read as another).
    static func report(_ message: String) {
        let oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        FileDescriptorOutput.writeAll(Array("kvstore: \(escapingControls(oneLine))\n".utf8), to: 2)
    }

    /// `text` with each control character (C0, DEL, C1) and each bidirectional control (U+061C,
    /// U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) written as an escape.
    static func escapingControls(_ text: String) -> String {
        text.escapingScalars(where: needsEscape)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar.properties.isBidiControl
    }
}

/// Raw writes to a file descriptor, bypassing C stdio (whose globals Swift 6 flags as unsafe).
enum FileDescriptorOutput {
    /// Writes all of `bytes` to `descriptor`, retrying after interruptions and short writes.
    /// - Returns: nil when everything was written, or the `errno` of the write that failed.
    @discardableResult
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        FileWriting.writeAll(bytes, to: descriptor)
    }
}
