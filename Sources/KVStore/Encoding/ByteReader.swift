/// A bounds-checked cursor over encoded bytes.
///
/// Every read checks the remaining length first and throws ``ValueDecodingError`` instead of
/// trapping, so the decoders built on it are safe on any input, including hostile or corrupt bytes:
/// varints are limited to 10 bytes, lengths and counts are checked against the remaining bytes before
/// anything is allocated, and container nesting is limited to ``maxDepth`` levels so that deep input
/// cannot overflow the stack.
///
/// ```swift
/// try bytes.withUnsafeBytes { buffer in
///     var reader = ByteReader(buffer)
///     let count = try reader.readLength("array", minimumElementSize: 1)
/// }
/// ```
///
/// The buffer must stay valid while the reader is used (it is not copied).
struct ByteReader {
    /// The deepest nesting of arrays and dictionaries a decoder accepts.
    static let maxDepth = 512

    /// The whole buffer; offsets in errors are relative to its start.
    let buffer: UnsafeRawBufferPointer
    /// The offset of the next byte to read.
    private(set) var offset: Int
    /// One past the last byte this reader may read (at most `buffer.count`).
    let end: Int
    /// How many containers are open around the current position.
    private(set) var depth = 0

    /// A reader of `buffer[offset ..< end]` (the whole buffer by default), inside `depth` containers.
    init(_ buffer: UnsafeRawBufferPointer, offset: Int = 0, end: Int? = nil, depth: Int = 0) {
        self.buffer = buffer
        self.end = min(end ?? buffer.count, buffer.count)
        self.offset = min(max(offset, 0), self.end)
        self.depth = depth
    }

    /// The number of bytes left before ``end``.
    var remaining: Int { end - offset }

    var isAtEnd: Bool { offset >= end }

    /// An error located at `offset` (the current position by default).
    func error(_ problem: String, at offset: Int? = nil) -> ValueDecodingError {
        ValueDecodingError(offset: offset ?? self.offset, problem: problem)
    }

    /// The next byte without moving past it, or nil at the end.
    func peekByte() -> UInt8? {
        offset < end ? buffer[offset] : nil
    }

    /// Reads one byte; `what` names the thing being read for the error message.
    @inline(__always)
    mutating func readByte(_ what: String) throws(ValueDecodingError) -> UInt8 {
        guard offset < end else { throw truncated(what) }
        let byte = buffer[offset]
        offset += 1
        return byte
    }

    /// Reads an unsigned LEB128 varint of at most 10 bytes that fits in 64 bits.
    @inline(__always)
    mutating func readVarint(_ what: String) throws(ValueDecodingError) -> UInt64 {
        // One byte, the common case for lengths, counts and small ints, inline.
        if offset < end, buffer[offset] < 0x80 {
            offset += 1
            return UInt64(buffer[offset - 1])
        }
        return try readLongVarint(what)
    }

    @inline(never)
    private mutating func readLongVarint(_ what: String) throws(ValueDecodingError) -> UInt64 {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else { throw error("truncated \(what)", at: start) }
            let byte = buffer[offset]
            offset += 1
            if shift == 63 && byte > 1 {
                throw error("varint of \(what) overflows 64 bits", at: start)
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// Reads a zigzag-encoded signed varint.
    mutating func readZigZag(_ what: String) throws(ValueDecodingError) -> Int64 {
        let raw = try readVarint(what)
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// Reads a varint count or length and checks that `count * minimumElementSize` bytes remain, so
    /// that a caller can allocate for `count` elements without trusting the input.
    @inline(__always)
    mutating func readLength(_ what: String, minimumElementSize: Int = 1) throws(ValueDecodingError) -> Int {
        let start = offset
        let raw = try readVarint(what)
        let size = max(minimumElementSize, 1)
        guard raw <= UInt64(remaining / size) else { throw exceeding(what, raw, at: start) }
        return Int(raw)
    }

    @inline(never)
    private func exceeding(_ what: String, _ length: UInt64, at start: Int) -> ValueDecodingError {
        error("truncated \(what): length \(length) exceeds the \(remaining) bytes left", at: start)
    }

    @inline(never)
    private func truncated(_ what: String) -> ValueDecodingError {
        error("truncated \(what)")
    }

    /// Reads `count` raw bytes; the result points into ``buffer``.
    @inline(__always)
    mutating func readBytes(_ count: Int, _ what: String) throws(ValueDecodingError) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else { throw truncated(what) }
        let slice = UnsafeRawBufferPointer(rebasing: buffer[offset ..< offset + count])
        offset += count
        return slice
    }

    /// Reads a little-endian `UInt32`.
    mutating func readUInt32(_ what: String) throws(ValueDecodingError) -> UInt32 {
        guard remaining >= 4 else { throw error("truncated \(what)") }
        let value = buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        offset += 4
        return UInt32(littleEndian: value)
    }

    /// Reads a little-endian `UInt64`.
    mutating func readUInt64(_ what: String) throws(ValueDecodingError) -> UInt64 {
        guard remaining >= 8 else { throw error("truncated \(what)") }
        let value = buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
        return UInt64(littleEndian: value)
    }

    /// Reads a varint length and that many bytes of valid UTF-8.
    mutating func readString(_ what: String) throws(ValueDecodingError) -> String {
        let start = offset
        let count = try readLength(what)
        let bytes = try readBytes(count, what)
        guard let string = UTF8Text.string(bytes.bindMemoryAssumingUInt8()) else {
            throw error("invalid UTF-8 in \(what)", at: start)
        }
        return string
    }

    /// Moves to `newOffset`, which must lie between the start of the buffer and ``end``; used to
    /// jump to an entry found through a dictionary's offset table.
    mutating func seek(to newOffset: Int) throws(ValueDecodingError) {
        guard newOffset >= 0, newOffset <= end else { throw error("offset \(newOffset) out of range") }
        offset = newOffset
    }

    /// Enters an array or dictionary; throws when nesting is deeper than ``maxDepth``.
    mutating func enterContainer() throws(ValueDecodingError) {
        guard depth < Self.maxDepth else {
            throw error("nesting deeper than \(Self.maxDepth) levels")
        }
        depth += 1
    }

    mutating func leaveContainer() {
        depth -= 1
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes as `UInt8` code units, for UTF-8 validation and comparison. Raw memory may always
    /// be read as `UInt8`.
    func bindMemoryAssumingUInt8() -> UnsafeBufferPointer<UInt8> {
        guard let base = baseAddress else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count)
    }
}
