/// Encoding a record an insert is handed in one pass over its dictionary: the common record, whose
/// keys are ASCII at every level and name top-level keys a key path can name, and which holds no
/// `null` at its top level. Each entry is copied out of the dictionary once, into temporary memory
/// with its key's first 16 bytes packed for sorting; the pass checks the key, sizes the value and
/// notes containers, then the entries are sorted and written (``RecordCodec/encode(_:)``'s bytes,
/// without its separate sizing, sorting and writing passes over the dictionary).
extension RecordCodec {
    /// The encoding of a plain record, and whether any value at its top level is an array or a
    /// dictionary (its nesting must then be checked: ``encodePlain(_:checkingNesting:)``).
    struct PlainEncoding {
        let bytes: [UInt8]
        let hasContainer: Bool
    }

    /// ``encode(_:)`` of `values` when it is plain: every key at its top level ASCII, non-empty,
    /// without `.` and not starting with `@` (a key a key path can name), no top-level `null`,
    /// and every key of nested dictionaries ASCII (in NFC as it is). Nil otherwise, for the
    /// general path to check, compose and encode.
    ///
    /// ```swift
    /// RecordCodec.encodePlain(["a": 1, "b": "x"])?.bytes == RecordCodec.encode(["a": 1, "b": "x"])   // true
    /// ```
    static func encodePlain(_ values: [String: Value]) -> PlainEncoding? {
        encodePlain(values, checkingNesting: {})
    }

    /// ``encodePlain(_:)``, calling `checkingNesting` once, before any nested value is sized or
    /// written, when the record holds a container; it may throw (a record nesting too deeply),
    /// which ends the encoding.
    static func encodePlain(
        _ values: [String: Value], checkingNesting: () throws -> Void
    ) rethrows -> PlainEncoding? {
        if let bytes = encodeScalars(values) { return PlainEncoding(bytes: bytes, hasContainer: false) }
        let count = values.count
        return try withUnsafeTemporaryAllocation(of: PlainEntry.self, capacity: count) { entries in
            guard let base = entries.baseAddress else { return nil }
            var filled = 0
            defer { base.deinitialize(count: filled) }
            var hasContainer = false
            for (key, value) in values {
                guard let (high, low, keyLength) = key.utf8.withContiguousStorageIfAvailable(Self.plainKey) ?? nil else { return nil }
                let size: Int
                switch value {
                case .null: return nil
                case .array, .dictionary:
                    hasContainer = true
                    size = -1  // sized once the nesting is checked
                default:
                    size = ValueCodec.encodedSize(of: value)
                }
                (base + filled).initialize(to: PlainEntry(high: high, low: low, keyLength: keyLength, size: size, key: key, value: value))
                filled += 1
            }
            if hasContainer {
                try checkingNesting()
                for slot in 0 ..< filled where base[slot].size < 0 {
                    var keysASCII = true
                    base[slot].size = ValueCodec.encodedSize(of: base[slot].value, keysASCII: &keysASCII)
                    guard keysASCII else { return nil }
                }
            }
            var total = 1 + ValueCodec.varintSize(UInt64(count)) + (count + 1) * 4
            for slot in 0 ..< filled {
                total += ValueCodec.varintSize(UInt64(base[slot].keyLength)) + base[slot].keyLength + base[slot].size
            }
            let bytes = writeSorted(base, count: count, size: total) { $1.tagged($0.pointee.value) }
            return PlainEncoding(bytes: bytes, hasContainer: hasContainer)
        }
    }

    /// A top-level entry copied out of the dictionary: its key's first 16 bytes big-endian
    /// (zero-padded), its length, the size of its tagged value (-1 until a container is sized).
    private struct PlainEntry: PackedKeyEntry {
        let high: UInt64
        let low: UInt64
        let keyLength: Int
        var size: Int
        let key: String
        let value: Value
    }

    /// A key's packed prefix and length when it is a plain top-level key (ASCII, non-empty, no
    /// `.`, no leading `@`), else nil.
    @inline(__always)
    static func plainKey(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64, Int)? {
        guard let base = bytes.baseAddress, !bytes.isEmpty, base[0] != UInt8(ascii: "@") else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        for index in 0 ..< bytes.count {
            let byte = base[index]
            guard byte < 0x80 && byte != UInt8(ascii: ".") else { return nil }
            if index < 8 {
                high |= UInt64(byte) << (56 - 8 * index)
            } else if index < 16 {
                low |= UInt64(byte) << (56 - 8 * (index - 8))
            }
        }
        return (high, low, bytes.count)
    }

    /// A record of `count` entries in `size` bytes: the slots sorted by key
    /// (``sortPacked(_:_:)``), each written as its key then its tagged value (`value`), each
    /// entry's end offset in the directory.
    @inline(__always)
    static func writeSorted<Entry: PackedKeyEntry>(
        _ entries: UnsafeMutablePointer<Entry>, count: Int, size: Int,
        value: (UnsafeMutablePointer<Entry>, inout ByteWriter) -> Void
    ) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: count) { order in
            for slot in 0 ..< count { order[slot] = UInt32(truncatingIfNeeded: slot) }
            sortPacked(order, entries)
            return ByteWriter.encoding(size: size) { writer in
                writer.byte(ValueCodec.version)
                writer.varint(UInt64(count))
                let table = writer.offset
                writer.store(0, at: table)
                writer.offset = table + (count + 1) * 4
                let entriesStart = writer.offset
                for number in 0 ..< count {
                    let entry = entries + Int(order[number])
                    writer.varint(UInt64(entry.pointee.keyLength))
                    if entry.pointee.keyLength <= 16 {
                        writer.prefix(entry.pointee.high, entry.pointee.low, count: entry.pointee.keyLength)
                    } else {
                        writer.utf8(entry.pointee.key)
                    }
                    value(entry, &writer)
                    guard let end = UInt32(exactly: writer.offset - entriesStart) else {
                        preconditionFailure("an encoded dictionary is larger than 4 GiB")
                    }
                    writer.store(end, at: table + 4 * (number + 1))
                }
            }
        }
    }

    /// Sorts the slots by their keys' UTF-8 bytes: the packed prefixes, then the lengths (a
    /// shorter key of 16 bytes or fewer is zero-padded, and ASCII keys hold no zero byte but
    /// NUL, which a prefix cannot tell from padding), then the whole keys.
    static func sortPacked<Entry: PackedKeyEntry>(_ order: UnsafeMutableBufferPointer<UInt32>, _ entries: UnsafeMutablePointer<Entry>) {
        @inline(__always)
        func precedes(_ a: UInt32, _ b: UInt32) -> Bool {
            let a = entries + Int(a), b = entries + Int(b)
            if a.pointee.high != b.pointee.high { return a.pointee.high < b.pointee.high }
            if a.pointee.low != b.pointee.low { return a.pointee.low < b.pointee.low }
            if a.pointee.keyLength <= 16 || b.pointee.keyLength <= 16 { return a.pointee.keyLength < b.pointee.keyLength }
            return UTF8Text.precedes(a.pointee.key, b.pointee.key)
        }
        order.sortSmall(by: precedes)
    }
}

/// A slot of a plain record's one pass: its key's first 16 bytes big-endian (zero-padded), its
/// length, and the key itself (compared whole past 16 bytes).
protocol PackedKeyEntry {
    var high: UInt64 { get }
    var low: UInt64 { get }
    var keyLength: Int { get }
    var key: String { get }
}

extension ByteWriter {
    /// The first `count` (at most 16) bytes of a key packed big-endian into two integers.
    @inline(__always)
    mutating func prefix(_ high: UInt64, _ low: UInt64, count: Int) {
        precondition(count <= 16, "a key prefix is at most 16 bytes")
        var rest = count
        var word = high
        while rest > 0 {
            byte(UInt8(truncatingIfNeeded: word >> 56))
            word <<= 8
            rest -= 1
            if rest == count - 8 { word = low }
        }
    }
}
