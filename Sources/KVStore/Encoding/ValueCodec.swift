import Foundation

/// The compact, versioned binary encoding of a ``Value``.
///
/// ```swift
/// let bytes = ValueCodec.encode(["name": "Ada", "born": 1815])
/// let value = try ValueCodec.decode(bytes)     // the same dictionary
/// ```
///
/// Layout: one version byte (``version``, currently 1), then the tagged value. A tagged value is a
/// tag byte followed by its payload:
///
/// | tag  | type       | payload                                                              |
/// |------|------------|----------------------------------------------------------------------|
/// | 0x00 | null       | —                                                                    |
/// | 0x01 | false      | —                                                                    |
/// | 0x02 | true       | —                                                                    |
/// | 0x03 | int        | zigzag LEB128 varint (1–10 bytes)                                    |
/// | 0x04 | double     | 8 bytes, little-endian IEEE 754 bit pattern                          |
/// | 0x05 | string     | varint byte count, UTF-8 bytes                                       |
/// | 0x06 | bytes      | varint byte count, bytes                                             |
/// | 0x07 | date       | 8 bytes, little-endian bit pattern of `timeIntervalSinceReferenceDate` |
/// | 0x08 | array      | varint element count, tagged values                                  |
/// | 0x09 | dictionary | keyed layout with a key directory, see ``RecordCodec``               |
/// | 0x0A | reference  | varint byte count, UTF-8 `kind/id`                                   |
///
/// Decoding never traps: truncated, corrupt or hostile bytes throw ``ValueDecodingError``. Strings
/// must be valid UTF-8 and references valid ``RecordRef``s; nothing is repaired silently. Nesting of
/// arrays and dictionaries is limited to ``ByteReader/maxDepth`` (512) levels when decoding; deeper
/// values encode but do not decode, so writes refuse records nesting more than
/// ``KeyValueCodingError/maximumRecordNesting`` (511) levels (a journal entry adds one).
package enum ValueCodec {
    /// The encoding version written first by ``encode(_:)`` and ``RecordCodec/encode(_:)``.
    package static let version: UInt8 = 1

    /// Encodes a value with the version byte first: the form stored on its own.
    ///
    /// ```swift
    /// ValueCodec.encode(.int(-1))   // [1, 3, 1]
    /// ```
    package static func encode(_ value: Value) -> [UInt8] {
        let (size, value) = sizedForEncoding(value)  // keys in NFC at every level
        return ByteWriter.encoding(size: 1 + size) { writer in
            writer.byte(version)
            writer.tagged(value)
        }
    }

    /// Appends the tagged value, without a version byte, to `bytes`; used for nesting.
    package static func encode(_ value: Value, into bytes: inout [UInt8]) {
        switch value {
        // Scalars (a journal entry's fields): appended as they are; containers written by ByteWriter.
        case .null:
            bytes.append(Tag.null)
        case .bool(let flag):
            bytes.append(flag ? Tag.true : Tag.false)
        case .int(let int):
            bytes.append(Tag.int)
            appendVarint(zigZag(int), to: &bytes)
        case .date(let date):
            bytes.append(Tag.date)
            appendUInt64(date.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
        case .double(let double):
            bytes.append(Tag.double)
            appendUInt64(double.bitPattern, to: &bytes)
        case .string(let string):
            bytes.append(Tag.string)
            appendVarint(UInt64(string.utf8.count), to: &bytes)
            appendUTF8(string, to: &bytes)
        case .reference(let ref):
            bytes.append(Tag.reference)
            appendVarint(UInt64(ref.kind.utf8.count + 1 + ref.id.utf8.count), to: &bytes)
            appendUTF8(ref.kind, to: &bytes)
            bytes.append(UInt8(ascii: "/"))
            appendUTF8(ref.id, to: &bytes)
        case .bytes, .array, .dictionary:
            appendWritten(value, to: &bytes)
        }
    }

    /// Appends `value` written by ``ByteWriter`` (kept out of line: its closure would otherwise
    /// cost the scalar cases above a copy of the value).
    @inline(never)
    private static func appendWritten(_ value: Value, to bytes: inout [UInt8]) {
        let (size, value) = sizedForEncoding(value)  // keys in NFC at every level
        ByteWriter.append(size: size, to: &bytes) { $0.tagged(value) }
    }

    /// Decodes a value written by ``encode(_:)`` (version byte first). The whole buffer must be
    /// one value: trailing bytes are an error.
    /// - Throws: ``ValueDecodingError`` naming the offset and the problem.
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(ValueDecodingError) -> Value {
        var reader = ByteReader(bytes)
        try readVersion(from: &reader)
        let value = try decodeTagged(from: &reader)
        guard reader.isAtEnd else {
            throw reader.error("\(reader.remaining) trailing bytes after the value")
        }
        return value
    }

    /// Decodes a value written by ``encode(_:)``.
    package static func decode(_ bytes: [UInt8]) throws(ValueDecodingError) -> Value {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(ValueDecodingError) -> Value in try decode(buffer) }
        }.get()
    }

    /// Decodes a value written by ``encode(_:)``.
    package static func decode(_ data: Data) throws(ValueDecodingError) -> Value {
        try data.withUnsafeBytes { buffer in
            Result { () throws(ValueDecodingError) -> Value in try decode(buffer) }
        }.get()
    }

    // MARK: - Internals shared with RecordCodec

    enum Tag {
        static let null: UInt8 = 0x00
        static let `false`: UInt8 = 0x01
        static let `true`: UInt8 = 0x02
        static let int: UInt8 = 0x03
        static let double: UInt8 = 0x04
        static let string: UInt8 = 0x05
        static let bytes: UInt8 = 0x06
        static let date: UInt8 = 0x07
        static let array: UInt8 = 0x08
        static let dictionary: UInt8 = 0x09
        static let reference: UInt8 = 0x0A
    }

    /// Reads and checks the version byte.
    static func readVersion(from reader: inout ByteReader) throws(ValueDecodingError) {
        let version = try reader.readByte("encoding version")
        guard version == Self.version else {
            throw reader.error(
                "unsupported encoding version \(version) (this build reads \(Self.version))",
                at: reader.offset - 1
            )
        }
    }

    /// Decodes one tagged value at the reader's position.
    ///
    /// Arrays and dictionaries are decoded with an explicit stack rather than by recursion, so
    /// hostile nesting cannot overflow the thread's stack whatever the build configuration; the
    /// nesting limit of ``ByteReader/maxDepth`` still applies.
    static func decodeTagged(from reader: inout ByteReader) throws(ValueDecodingError) -> Value {
        // Scalars, the common case when one key is read, need none of the container machinery.
        if let tag = reader.peekByte(), tag != Tag.array, tag != Tag.dictionary {
            _ = try reader.readByte("value tag")
            return try decodeScalar(tag, from: &reader)
        }
        if reader.peekByte() == Tag.array, let array = try decodeScalarArray(from: &reader) { return array }
        // The containers' contents are kept apart from the frames, each grown in place: a
        // payload bound out of a popped frame is a second reference to its storage, and every
        // append or insertion would copy the whole container (quadratic in its size).
        var stack: [ContainerFrame] = []
        var arrays: [[Value]] = []
        var dictionaries: [KeyedDecoding] = []
        descending: while true {
            var value: Value
            let tag = try reader.readByte("value tag")
            switch tag {
            case Tag.array:
                try reader.enterContainer()
                let count = try reader.readLength("array")
                if count > 0 {
                    var elements: [Value] = []
                    elements.reserveCapacity(count)
                    arrays.append(elements)
                    stack.append(.array(remaining: count))
                    continue descending
                }
                reader.leaveContainer()
                value = .array([])
            case Tag.dictionary:
                try reader.enterContainer()
                var dictionary = try KeyedDecoding(reading: &reader)
                if let entry = try dictionary.nextEntry() {
                    dictionaries.append(dictionary)
                    stack.append(.dictionary(parent: reader))
                    reader = entry
                    continue descending
                }
                try reader.seek(to: dictionary.directory.entriesEnd)
                reader.leaveContainer()
                value = .dictionary(dictionary.result)
            default:
                value = try decodeScalar(tag, from: &reader)
            }
            // Deliver the value to the enclosing containers, closing those that are complete.
            while let frame = stack.last {
                switch frame {
                case .array(let remaining):
                    arrays[arrays.count - 1].append(value)
                    if remaining > 1 {
                        stack[stack.count - 1] = .array(remaining: remaining - 1)
                        continue descending
                    }
                    stack.removeLast()
                    reader.leaveContainer()
                    value = .array(arrays.removeLast())
                case .dictionary(let parent):
                    try dictionaries[dictionaries.count - 1].finish(reader, value: value)
                    if let entry = try dictionaries[dictionaries.count - 1].nextEntry() {
                        reader = entry
                        continue descending
                    }
                    stack.removeLast()
                    let dictionary = dictionaries.removeLast()
                    reader = parent
                    try reader.seek(to: dictionary.directory.entriesEnd)
                    reader.leaveContainer()
                    value = .dictionary(dictionary.result)
                }
            }
            return value
        }
    }

    /// An array of scalars (a record's tags), decoded without the container stack, exactly as the
    /// stack decodes it — the same checks, the same errors; nil, the reader unmoved, when an
    /// element is an array or a dictionary (or the bytes end before one).
    private static func decodeScalarArray(from reader: inout ByteReader) throws(ValueDecodingError) -> Value? {
        var attempt = reader
        _ = try attempt.readByte("value tag")
        try attempt.enterContainer()
        let count = try attempt.readLength("array")
        var elements: [Value] = []
        elements.reserveCapacity(count)
        for _ in 0 ..< count {
            guard let tag = attempt.peekByte(), tag != Tag.array, tag != Tag.dictionary else { return nil }
            _ = try attempt.readByte("value tag")
            elements.append(try decodeScalar(tag, from: &attempt))
        }
        attempt.leaveContainer()
        reader = attempt
        return .array(elements)
    }

    /// A container being decoded by ``decodeTagged(from:)``; its contents are on a stack of their own.
    private enum ContainerFrame {
        case array(remaining: Int)
        /// A dictionary: the reader to resume once its entries (each read by its own reader) end.
        case dictionary(parent: ByteReader)
    }

    @inline(never)
    private static func decodeScalar(_ tag: UInt8, from reader: inout ByteReader) throws(ValueDecodingError) -> Value {
        switch tag {
        case Tag.null:
            return .null
        case Tag.false:
            return .bool(false)
        case Tag.true:
            return .bool(true)
        case Tag.int:
            return .int(try reader.readZigZag("int"))
        case Tag.double:
            return .double(Double(bitPattern: try reader.readUInt64("double")))
        case Tag.string:
            return .string(try reader.readString("string"))
        case Tag.bytes:
            let count = try reader.readLength("bytes")
            return .bytes(Data(try reader.readBytes(count, "bytes")))
        case Tag.date:
            let interval = Double(bitPattern: try reader.readUInt64("date"))
            return .date(Date(timeIntervalSinceReferenceDate: interval))
        case Tag.reference:
            let start = reader.offset
            let bytes = try reader.readBytes(try reader.readLength("reference"), "reference")
            if let ref = RecordRef(printableASCII: bytes) { return .reference(ref) }
            guard let text = UTF8Text.string(bytes.bindMemoryAssumingUInt8()) else {
                throw reader.error("invalid UTF-8 in reference", at: start)
            }
            do {
                return .reference(try RecordRef(text))
            } catch {
                throw reader.error("invalid reference: \(error.problem)", at: start)
            }
        default:
            throw reader.error("unknown value tag \(hex(tag))", at: reader.offset - 1)
        }
    }

    /// Appends an unsigned LEB128 varint.
    @inline(__always)
    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        if value < 0x80 { return bytes.append(UInt8(value)) }  // lengths and counts, mostly
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Appends the string's UTF-8 bytes (one copy from its storage, not a byte at a time).
    @inline(__always)
    static func appendUTF8(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    static func appendUInt64(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// `0x3f`.
    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return byte < 0x10 ? "0x0" + digits : "0x" + digits
    }
}
