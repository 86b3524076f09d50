import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A command's input file: a path, or `-` for standard input.
enum InputFile {
    /// The whole text of `path` (`-`: standard input), as UTF-8.
    /// - Parameter what: what the file is, for error messages ("template").
    static func text(of path: String, what: String) throws(CommandError) -> String {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            try checkReadable(path, what: what)
            // Read to the end through a handle: FileManager's contents(atPath:) fails on a pipe.
            guard let contents = try? FileHandle(forReadingFrom: URL(fileURLWithPath: path)).readToEnd() ?? Data() else {
                throw CommandError("\(path): cannot read the \(what) file")
            }
            data = contents
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandError("\(path == "-" ? "standard input" : path): the \(what) is not UTF-8 text")
        }
        return text
    }

    /// Fails with one line naming the problem when `path` is missing, a directory or unreadable.
    static func checkReadable(_ path: String, what: String) throws(CommandError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandError("\(path): no such \(what) file")
        }
        if isDirectory.boolValue { throw CommandError("\(path): is a directory, not a \(what) file") }
        if !FileManager.default.isReadableFile(atPath: path) {
            throw CommandError("\(path): permission denied reading the \(what) file")
        }
    }
}

/// Lines of a file read in 1 MiB chunks, in linear time and bounded memory (a line may be at
/// most ``maxLineLength`` bytes), that can go back to a line read before (a store write may run
/// its body again after growing the map).
///
/// Standard input is first copied to a temporary file (``StreamInput``), so it can be read again too.
///
/// ```swift
/// let reader = try LineReader(path: "records.jsonl")
/// while let line = try reader.nextLine() { … reader.lineNumber … }
/// ```
final class LineReader {
    /// A place to come back to with ``seek(to:)``.
    struct Mark {
        let offset: Int
        let lineNumber: Int
    }

    /// The longest line read, 128 MiB: room for the typed JSON of the largest record a journal
    /// frame carries (64 MiB, written as base64 when it is bytes: a third more). A longer line is
    /// an error, before it is held in memory whole.
    static let maxLineLength = 128 << 20

    /// The number of the line last returned (1-based; 0 before the first).
    private(set) var lineNumber = 0
    /// The input's size in bytes.
    let size: Int
    /// The longest line read (``maxLineLength`` but in tests).
    let lineLimit: Int
    private let input: StreamInput
    private var descriptor: Int32 { input.descriptor }
    private var buffer: [UInt8] = []
    /// Where the next line starts in `buffer`.
    private var start = 0
    /// How far `buffer` was searched for a line break: each byte is searched once.
    private var searched = 0
    /// The file offset of `buffer[0]`.
    private var bufferOffset = 0
    private var atEnd = false
    private var chunk = [UInt8](repeating: 0, count: chunkSize)
    private static let chunkSize = 1 << 20

    /// Opens `path`, or standard input for `-` (copied to a temporary file, see ``StreamInput``).
    init(path: String, lineLimit: Int = maxLineLength) throws {
        self.lineLimit = lineLimit
        if path != "-" { try InputFile.checkReadable(path, what: "jsonl") }
        input = try StreamInput(path)
        var status = stat()
        fstat(input.descriptor, &status)
        size = Int(status.st_size)
    }

    /// The number of lines in the whole input (a last line without a line break counts), for a
    /// progress bar's total; reads the input once more, in chunks.
    func countLines() -> Int {
        var lines = 0, offset = 0, last: UInt8 = UInt8(ascii: "\n")
        var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, Self.chunkSize, off_t(offset)) }
            if count <= 0 { break }
            lines += chunk[..<count].reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            last = chunk[count - 1]
            offset += count
        }
        return last == UInt8(ascii: "\n") ? lines : lines + 1
    }

    /// The place of the next line.
    var mark: Mark { Mark(offset: bufferOffset + start, lineNumber: lineNumber) }

    /// Goes back (or forward) to `mark`.
    func seek(to mark: Mark) {
        buffer.removeAll(keepingCapacity: true)
        start = 0
        searched = 0
        bufferOffset = mark.offset
        lineNumber = mark.lineNumber
        atEnd = false
    }

    /// The next line without its line break, or nil at the end of the input.
    /// - Throws: ``CommandError`` for a line longer than the limit, naming it.
    func nextLine() throws(CommandError) -> ArraySlice<UInt8>? {
        while true {
            if let newline = firstLineBreak(from: max(start, searched)) {
                if newline - start > lineLimit { throw tooLong() }
                defer { start = newline + 1; searched = start }
                lineNumber += 1
                return buffer[start..<newline]
            }
            searched = buffer.count
            if buffer.count - start > lineLimit { throw tooLong() }
            if atEnd {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count; searched = start }
                lineNumber += 1
                return buffer[start...]
            }
            try fill()
        }
    }

    /// The index of the first line break in `buffer` from `index` on (`memchr`: the search is
    /// most of the reading).
    private func firstLineBreak(from index: Int) -> Int? {
        buffer.withUnsafeBytes { bytes -> Int? in
            guard index < bytes.count, let found = memchr(bytes.baseAddress! + index, 0x0A, bytes.count - index) else { return nil }
            return UnsafeRawPointer(found) - UnsafeRawPointer(bytes.baseAddress!)
        }
    }

    /// The error for the next line, longer than the limit.
    private func tooLong() -> CommandError {
        let size = lineLimit % (1 << 20) == 0 ? "\(lineLimit >> 20) MiB" : "\(lineLimit) bytes"
        return CommandError("line \(lineNumber + 1): longer than \(size) (\(lineLimit) bytes), the longest line load reads")
    }

    /// Reads the next chunk after what the buffer holds, dropping what was consumed.
    private func fill() throws(CommandError) {
        if start > 0 {
            buffer.removeFirst(start)
            bufferOffset += start
            searched -= start
            start = 0
        }
        let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, Self.chunkSize, off_t(bufferOffset + buffer.count)) }
        if count < 0 { throw CommandError("cannot read the input: \(String(cString: strerror(errno)))") }
        if count == 0 { atEnd = true }
        buffer.append(contentsOf: chunk[..<count])
    }
}
