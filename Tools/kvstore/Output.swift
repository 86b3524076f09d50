#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The tool's standard output, buffered: lines go out in large writes, so a dump of many records
/// costs few system calls. Call ``flush()`` when done.
///
/// ```swift
/// let output = StandardOutput()
/// output.line(#"{"name":"Ada"}"#)
/// output.flush()
/// ```
final class StandardOutput {
    private var buffer: [UInt8] = []
    private static let flushThreshold = 1 << 16

    /// Writes `text` and a newline.
    func line(_ text: String = "") {
        write(text)
        write("\n")
    }

    /// Writes `text` as it is.
    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.flushThreshold { flush() }
    }

    /// Writes each of `lines`, each followed by a newline.
    func lines(_ lines: [String]) {
        for text in lines { line(text) }
    }

    /// Writes what is buffered.
    func flush() {
        FileDescriptorOutput.writeAll(buffer, to: 1)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// The tool's standard error: where every failure is reported, as one line.
enum StandardError {
    /// Writes `kvstore: <message>` as a single line (line breaks in `message` become spaces).
    static func report(_ message: String) {
        let oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        FileDescriptorOutput.writeAll(Array("kvstore: \(oneLine)\n".utf8), to: 2)
    }
}

/// Raw writes to a file descriptor, bypassing C stdio (whose globals Swift 6 flags as unsafe).
enum FileDescriptorOutput {
    /// Writes all of `bytes` to `descriptor`, retrying after interruptions and short writes.
    /// - Returns: nil when everything was written, or the `errno` of the write that failed.
    @discardableResult
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { raw -> Int32? in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
    }
}
