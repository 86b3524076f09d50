#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A stream to read twice (`journal apply` checks it through, then applies it): a regular file,
/// or standard input — or a file that is a pipe, such as `/dev/stdin` or the shell's `<(…)` —
/// spooled to a temporary file so that memory stays bounded and it can be read at any offset.
final class StreamInput {
    let descriptor: Int32
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
                return
            }
            source = opened
        }
        defer { if source != 0 { close(source) } }
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("kvstore-apply-\(UUID().uuidString)")
        descriptor = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw CommandError("cannot create a temporary file for standard input: \(String(cString: strerror(errno)))") }
        spool = path
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw CommandError("reading standard input failed: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            FileDescriptorOutput.writeAll(Array(buffer[..<n]), to: descriptor)
        }
        try rewind()
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
