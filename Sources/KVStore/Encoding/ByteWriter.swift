import Foundation

/// Writes bytes through a pointer into memory sized beforehand — the value encoding
/// (``ValueCodec``, ``RecordCodec``, sized with ``ValueCodec/encodedSize(of:)``), and the journal
/// entries a replica writes from a source's bytes (``EncodedInsertionWriter``): one allocation per
/// encoding, and no capacity or uniqueness check per byte as appending to an array makes. Every
/// write checks that it stays inside the memory (a sizing mistake stops the process rather than
/// writing past it).
///
/// ```swift
/// let bytes = ByteWriter.encoding(size: ValueCodec.encodedSize(of: value)) { $0.tagged(value) }
/// ```
struct ByteWriter {
    private let start: UnsafeMutablePointer<UInt8>
    private let end: UnsafeMutablePointer<UInt8>
    private(set) var position: UnsafeMutablePointer<UInt8>

    /// A writer at the start of `buffer`.
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        start = buffer.baseAddress!
        end = start + buffer.count
        position = start
    }

    /// A new array of exactly `size` bytes, all written by `write`.
    static func encoding(size: Int, _ write: (inout ByteWriter) -> Void) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var writer = ByteWriter(UnsafeMutableBufferPointer(rebasing: buffer[..<size]))
            write(&writer)
            precondition(writer.position == writer.end, "encoded size mismatch")
            count = size
        }
    }

    /// Appends exactly `size` bytes, all written by `write`, to `bytes` (written first into
    /// temporary memory, on the stack when small, then copied in one append).
    static func append(size: Int, to bytes: inout [UInt8], _ write: (inout ByteWriter) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { buffer in
            var writer = ByteWriter(buffer)
            write(&writer)
            precondition(writer.position == writer.end, "encoded size mismatch")
            bytes.append(contentsOf: UnsafeBufferPointer(buffer))
        }
    }

    /// The number of bytes from the start; setting it moves the position (inside the memory).
    var offset: Int {
        get { position - start }
        set {
            precondition(newValue >= 0 && newValue <= end - start, "a write position outside its buffer")
            position = start + newValue
        }
    }

    /// Moves the position `count` bytes on, checking they are there, and returns where it was.
    @inline(__always)
    private mutating func advance(by count: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(end - position >= count, "a write past the end of its buffer")
        defer { position += count }
        return position
    }

    @inline(__always)
    mutating func byte(_ byte: UInt8) {
        advance(by: 1).initialize(to: byte)
    }

    /// An unsigned LEB128 varint.
    @inline(__always)
    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            byte(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        byte(UInt8(rest))
    }

    /// A little-endian `UInt64`.
    @inline(__always)
    mutating func uint64(_ value: UInt64) {
        UnsafeMutableRawPointer(advance(by: 8)).storeBytes(of: value.littleEndian, as: UInt64.self)
    }

    /// A little-endian `UInt32` at `offset` from the start, the position unchanged.
    func store(_ value: UInt32, at offset: Int) {
        precondition(offset >= 0 && offset + 4 <= end - start, "a write outside its buffer")
        UnsafeMutableRawPointer(start + offset).storeBytes(of: value.littleEndian, as: UInt32.self)
    }

    @inline(__always)
    mutating func bytes(_ bytes: UnsafeRawBufferPointer) {
        let target = advance(by: bytes.count)
        if let base = bytes.baseAddress {
            UnsafeMutableRawPointer(target).copyMemory(from: base, byteCount: bytes.count)
        }
    }

    /// The string's UTF-8 bytes (no length).
    @inline(__always)
    mutating func utf8(_ string: String) {
        var string = string
        string.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
    }

    /// A tagged value (the layout of ``ValueCodec``).
    mutating func tagged(_ value: Value) {
        switch value {
        case .null:
            byte(ValueCodec.Tag.null)
        case .bool(let flag):
            byte(flag ? ValueCodec.Tag.true : ValueCodec.Tag.false)
        case .int(let int):
            byte(ValueCodec.Tag.int)
            varint(ValueCodec.zigZag(int))
        case .double(let double):
            byte(ValueCodec.Tag.double)
            uint64(double.bitPattern)
        case .string(let string):
            byte(ValueCodec.Tag.string)
            varint(UInt64(string.utf8.count))
            utf8(string)
        case .bytes(let data):
            byte(ValueCodec.Tag.bytes)
            varint(UInt64(data.count))
            data.withUnsafeBytes { bytes($0) }
        case .date(let date):
            byte(ValueCodec.Tag.date)
            uint64(date.timeIntervalSinceReferenceDate.bitPattern)
        case .array(let elements):
            byte(ValueCodec.Tag.array)
            varint(UInt64(elements.count))
            for element in elements { tagged(element) }
        case .dictionary(let dictionary):
            byte(ValueCodec.Tag.dictionary)
            keyed(dictionary)
        case .reference(let ref):
            byte(ValueCodec.Tag.reference)
            varint(UInt64(ref.kind.utf8.count + 1 + ref.id.utf8.count))
            utf8(ref.kind)
            byte(UInt8(ascii: "/"))
            utf8(ref.id)
        }
    }

    /// A keyed dictionary (the layout of ``RecordCodec``, no tag): entries in UTF-8 byte order of
    /// their keys, each offset written into the directory as soon as its entry ends. Keys are
    /// written as given: the encoders' entry points (`RecordCodec.encode`, `ValueCodec.encode`) put
    /// them in NFC first.
    mutating func keyed(_ dictionary: [String: Value]) {
        let count = dictionary.count
        varint(UInt64(count))
        let table = offset
        store(0, at: table)
        _ = advance(by: (count + 1) * 4)
        let entriesStart = offset
        UTF8Text.withSortedIndices(dictionary) { order in
            for (number, sortKey) in order.enumerated() {
                let key = dictionary.keys[sortKey.index]
                varint(UInt64(key.utf8.count))
                utf8(key)
                tagged(dictionary.values[sortKey.index])
                guard let end = UInt32(exactly: offset - entriesStart) else {
                    preconditionFailure("an encoded dictionary is larger than 4 GiB")
                }
                store(end, at: table + 4 * (number + 1))
            }
        }
    }
}

extension ValueCodec {
    /// The number of bytes ``ByteWriter/tagged(_:)`` writes for `value`.
    static func encodedSize(of value: Value) -> Int {
        var keysASCII = true
        return encodedSize(of: value, keysASCII: &keysASCII)
    }

    /// The number of bytes ``ByteWriter/tagged(_:)`` writes for `value`; `keysASCII` is cleared
    /// when a dictionary key at any level is not ASCII (and so may need composing into NFC).
    static func encodedSize(of value: Value, keysASCII: inout Bool) -> Int {
        switch value {
        case .null, .bool: 1
        case .int(let int): 1 + varintSize(zigZag(int))
        case .double, .date: 9
        case .string(let string): 1 + lengthAndBytesSize(string.utf8.count)
        case .bytes(let data): 1 + lengthAndBytesSize(data.count)
        case .array(let elements):
            elements.reduce(1 + varintSize(UInt64(elements.count))) { $0 + encodedSize(of: $1, keysASCII: &keysASCII) }
        case .dictionary(let dictionary): 1 + keyedSize(of: dictionary, keysASCII: &keysASCII)
        case .reference(let ref): 1 + lengthAndBytesSize(ref.kind.utf8.count + 1 + ref.id.utf8.count)
        }
    }

    /// The number of bytes ``ByteWriter/keyed(_:)`` writes for `dictionary`; see
    /// ``encodedSize(of:keysASCII:)`` for `keysASCII`.
    static func keyedSize(of dictionary: [String: Value], keysASCII: inout Bool) -> Int {
        var size = varintSize(UInt64(dictionary.count)) + (dictionary.count + 1) * 4
        for (key, value) in dictionary {
            if keysASCII && !UTF8Text.isASCII(key) { keysASCII = false }
            size += lengthAndBytesSize(key.utf8.count) + encodedSize(of: value, keysASCII: &keysASCII)
        }
        return size
    }

    /// The size of `value` encoded with its keys in NFC, and the value to encode: `value` itself
    /// when its keys are all ASCII (the common case, checked while sizing), else a copy with
    /// every key composed (``UTF8Text/composingKeys(_:)``).
    static func sizedForEncoding(_ value: Value) -> (size: Int, value: Value) {
        var keysASCII = true
        let size = encodedSize(of: value, keysASCII: &keysASCII)
        if keysASCII { return (size, value) }
        let composed = UTF8Text.composingKeys(value)
        return (encodedSize(of: composed), composed)
    }

    /// ``sizedForEncoding(_:)`` for a record: the size of its keyed dictionary.
    static func sizedForEncoding(_ record: [String: Value]) -> (size: Int, record: [String: Value]) {
        var keysASCII = true
        let size = keyedSize(of: record, keysASCII: &keysASCII)
        if keysASCII { return (size, record) }
        let composed = UTF8Text.composingKeys(record)
        var ignored = true
        return (keyedSize(of: composed, keysASCII: &ignored), composed)
    }

    /// The zigzag form of an int (small magnitudes of either sign give small varints).
    @inline(__always)
    static func zigZag(_ int: Int64) -> UInt64 {
        UInt64(bitPattern: (int << 1) ^ (int >> 63))
    }

    @inline(__always)
    static func varintSize(_ value: UInt64) -> Int {
        value < 0x80 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }

    @inline(__always)
    private static func lengthAndBytesSize(_ count: Int) -> Int {
        varintSize(UInt64(count)) + count
    }
}
