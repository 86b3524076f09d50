#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import KVStore

/// A stream to read twice (`journal apply` checks it through, then applies it): a regular file,
/// or standard input — or a file that is a pipe, such as `/dev/stdin` or the shell's `<(…)` —
/// spooled to a temporary file so that memory stays bounded and it can be read at any offset.
/// An open-ended stream (`journal export --follow`) from a pipe is not spooled, as it only ends
/// when its writer stops: it is read once, as it arrives (see ``openEndedStart``).
final class StreamInput {
    let descriptor: Int32
    /// For an open-ended stream read from a pipe: the bytes already read from ``descriptor`` (its
    /// start, through the header); the rest is read from ``descriptor`` as it arrives. Nil when
    /// the stream is in a file that can be read twice.
    let openEndedStart: [UInt8]?
    private let spool: String?

    /// Opens `file`, or spools standard input when it is nil or `-`.
    init(_ file: String?) throws {
        var source: Int32 = 0
        if let file, file != "-" {
            let opened = open(file, O_RDONLY)
            guard opened >= 0 else { throw CommandError("\(file): cannot open: \(String(cString: strerror(errno)))") }
            if !Self.isPipe(opened) {
                descriptor = opened
                spool = nil
                openEndedStart = nil
                return
            }
            source = opened
        }
        let start = try Self.readBytes(upTo: JournalStream.headerLength, from: source)
        if let header = try? JournalStreamReader(bytes: start).header, header.lastSequence == nil {
            descriptor = source
            spool = nil
            openEndedStart = start
            return
        }
        defer { if source != 0 { close(source) } }
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("kvstore-spool-\(UUID().uuidString)")
        descriptor = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw CommandError("cannot create a temporary file for standard input: \(String(cString: strerror(errno)))") }
        spool = path
        openEndedStart = nil
        var bytes = start
        while !bytes.isEmpty {
            if let failure = FileWriting.writeAll(bytes, to: descriptor) {
                // A stream cut short here would read as a shorter input: fail instead, naming where.
                var message = FileWriting.message(failure, writing: "the temporary copy of standard input", to: path)
                if FileWriting.isNoSpace(failure) { message += "; set TMPDIR to a directory with room" }
                throw CommandError(message)
            }
            bytes = try Self.readBytes(upTo: 1 << 16, from: source)
        }
        try rewind()
    }

    /// Reads `count` bytes from `source`, fewer only when it ends first.
    private static func readBytes(upTo count: Int, from source: Int32) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress! + filled, count - filled) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw CommandError("reading standard input failed: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            filled += n
        }
        return Array(buffer[..<filled])
    }

    /// True when `descriptor` is a pipe or socket, which cannot be read at an offset.
    private static func isPipe(_ descriptor: Int32) -> Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        let type = status.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFSOCK
    }

    /// Goes back to the first byte.
    func rewind() throws {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw CommandError("cannot rewind the stream: \(String(cString: strerror(errno)))") }
    }

    deinit {
        close(descriptor)
        if let spool { unlink(spool) }
    }
}
