import Foundation

/// The encoding of a record's top-level dictionary, with a key directory so that one key can be read
/// without decoding the whole record.
///
/// ```swift
/// let bytes = RecordCodec.encode(["name": "Ada", "born": 1815])
/// let born = try bytes.withUnsafeBytes { try RecordCodec.value(forKey: "born", in: $0) }  // .int(1815)
/// ```
///
/// Layout: the version byte (``ValueCodec/version``), then a *keyed dictionary*, the same layout
/// that ``ValueCodec`` uses (after tag 0x09) for nested dictionaries:
///
/// ```
/// varint count
/// (count + 1) × UInt32 little-endian offsets, relative to the end of this table:
///     offset[i] is where entry i starts, offset[count] is the total length of the entries
///     (offset[0] == 0; offsets strictly increase)
/// count × entry: varint key length, UTF-8 key bytes, tagged value (see ValueCodec)
/// ```
///
/// Entries are sorted by the UTF-8 bytes of their keys, so the encoding of a dictionary is
/// deterministic and ``value(forKey:in:)`` can binary-search the directory. Decoders check that
/// offsets are in range and increasing, that keys strictly increase (no duplicates), that every value
/// ends exactly where its entry ends, and that nothing follows the record.
///
/// An encoded dictionary's entries must fit in 4 GiB (UInt32 offsets); ``encode(_:)`` traps beyond.
package enum RecordCodec {
    /// Encodes a record: the version byte, then the keyed dictionary, its keys in NFC at every level.
    package static func encode(_ values: [String: Value]) -> [UInt8] {
        let (size, record) = ValueCodec.sizedForEncoding(values)
        return ByteWriter.encoding(size: 1 + size) { writer in
            writer.byte(ValueCodec.version)
            writer.keyed(record)
        }
    }

    /// Decodes a whole record written by ``encode(_:)``.
    /// - Throws: ``ValueDecodingError`` naming the offset and the problem.
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(ValueDecodingError) -> [String: Value] {
        var reader = ByteReader(bytes)
        try ValueCodec.readVersion(from: &reader)
        let values = try decodeKeyed(from: &reader)
        guard reader.isAtEnd else {
            throw reader.error("\(reader.remaining) trailing bytes after the record")
        }
        return values
    }

    /// Decodes a whole record written by ``encode(_:)``.
    package static func decode(_ bytes: [UInt8]) throws(ValueDecodingError) -> [String: Value] {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(ValueDecodingError) -> [String: Value] in try decode(buffer) }
        }.get()
    }

    /// The value stored under `key`, or nil when the record has no such key.
    ///
    /// Binary-searches the key directory comparing raw UTF-8 bytes, and decodes only the matching
    /// entry's value. It validates what it reads (the directory entries it visits and the value it
    /// returns), not the whole record: use ``decode(_:)`` to check a record completely. `key` is
    /// looked up in NFC, the form records store (see ``lookUp(_:in:)`` for older records).
    ///
    /// ```swift
    /// try bytes.withUnsafeBytes { try RecordCodec.value(forKey: "name", in: $0) }   // .string("Ada")
    /// ```
    package static func value(
        forKey key: String,
        in bytes: UnsafeRawBufferPointer
    ) throws(ValueDecodingError) -> Value? {
        try value(forNFCKey: UTF8Text.nfc(key), in: bytes)
    }

    /// ``value(forKey:in:)`` for a key already in NFC (a key path's component, or a key normalized
    /// once before a loop over many records): the check is not repeated per record.
    package static func value(
        forNFCKey key: String,
        in bytes: UnsafeRawBufferPointer
    ) throws(ValueDecodingError) -> Value? {
        var reader = ByteReader(bytes)
        try ValueCodec.readVersion(from: &reader)
        let directory = try KeyDirectory(reading: &reader, isRecord: true)
        return try lookUp(key, in: directory).value
    }

    /// The record's keys, in the order of their UTF-8 bytes, without decoding any value.
    package static func keys(in bytes: UnsafeRawBufferPointer) throws(ValueDecodingError) -> [String] {
        var reader = ByteReader(bytes)
        try ValueCodec.readVersion(from: &reader)
        let directory = try KeyDirectory(reading: &reader, isRecord: true)
        var keys: [String] = []
        keys.reserveCapacity(directory.count)
        var previous: UnsafeRawBufferPointer?
        for index in 0 ..< directory.count {
            var entry = try directory.entryReader(index, depth: 1)
            let keyStart = entry.offset
            let keyBytes = try readKey(from: &entry, after: previous)
            keys.append(try makeKey(keyBytes, at: keyStart, in: entry))
            previous = keyBytes
        }
        return keys
    }

    // MARK: - Keyed dictionaries (shared with ValueCodec; written by ByteWriter)

    /// Decodes a keyed dictionary at the reader's position, checking every entry.
    ///
    static func decodeKeyed(from reader: inout ByteReader) throws(ValueDecodingError) -> [String: Value] {
        try reader.enterContainer()
        defer { reader.leaveContainer() }
        var state = try KeyedDecoding(reading: &reader)
        while var entry = try state.nextEntry() {
            let value = try ValueCodec.decodeTagged(from: &entry)
            try state.finish(entry, value: value)
        }
        try reader.seek(to: state.directory.entriesEnd)
        return state.result
    }

    // MARK: - Private

    /// Finds `key`, which must be in NFC: its index and value when present, else the index where it
    /// would go. Records written before keys were normalized may spell a key otherwise (`e` +
    /// U+0301 for `é`, the Kelvin sign U+212A for `K`): when `key` is not found by its bytes, the
    /// record's non-ASCII keys are compared with it as `String`s (canonical equivalence; an ASCII
    /// key is in NFC, so it can only equal itself), and a match found that way has `spelledAlike`
    /// false.
    static func lookUp(
        _ key: String, in directory: KeyDirectory
    ) throws(ValueDecodingError) -> (index: Int, value: Value?, spelledAlike: Bool) {
        var key = key
        let found = try key.withUTF8 { keyBytes in
            Result { () throws(ValueDecodingError) in try find(UnsafeRawBufferPointer(keyBytes), in: directory) }
        }.get()
        guard found.value == nil else { return (found.index, found.value, true) }
        for index in 0 ..< directory.count {
            var entry = try directory.entryReader(index, depth: 1)
            let keyStart = entry.offset
            let keyLength = try entry.readLength("dictionary key")
            let keyBytes = try entry.readBytes(keyLength, "dictionary key")
            guard keyBytes.contains(where: { $0 >= 0x80 }),
                  try makeKey(keyBytes, at: keyStart, in: entry) == key else { continue }
            let value = try ValueCodec.decodeTagged(from: &entry)
            guard entry.isAtEnd else { throw entry.error("\(entry.remaining) trailing bytes in a dictionary entry") }
            return (index, value, false)
        }
        return (found.index, nil, true)
    }

    /// Binary-searches the directory for `key`: its index and value when present, else the index
    /// where it would go.
    static func find(
        _ key: UnsafeRawBufferPointer, in directory: KeyDirectory
    ) throws(ValueDecodingError) -> (index: Int, value: Value?) {
        var low = 0
        var high = directory.count
        while low < high {
            let middle = low + (high - low) / 2
            var entry = try directory.entryReader(middle, depth: 1)
            let keyLength = try entry.readLength("dictionary key")
            let order = compare(try entry.readBytes(keyLength, "dictionary key"), key)
            if order == 0 {
                let value = try ValueCodec.decodeTagged(from: &entry)
                guard entry.isAtEnd else {
                    throw entry.error("\(entry.remaining) trailing bytes in a dictionary entry")
                }
                return (middle, value)
            }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return (low, nil)
    }

    /// Reads an entry's key bytes, checking they sort strictly after `previous`.
    static func readKey(
        from entry: inout ByteReader,
        after previous: UnsafeRawBufferPointer?
    ) throws(ValueDecodingError) -> UnsafeRawBufferPointer {
        let start = entry.offset
        let count = try entry.readLength("dictionary key")
        let key = try entry.readBytes(count, "dictionary key")
        if let previous, compare(previous, key) >= 0 {
            throw entry.error("dictionary keys out of order or duplicated", at: start)
        }
        return key
    }

    static func makeKey(
        _ bytes: UnsafeRawBufferPointer,
        at offset: Int,
        in reader: ByteReader
    ) throws(ValueDecodingError) -> String {
        guard let key = UTF8Text.string(bytes.bindMemoryAssumingUInt8()) else {
            throw reader.error("invalid UTF-8 in dictionary key", at: offset)
        }
        return key
    }

    /// Orders byte strings like `memcmp`, shorter first on a common prefix.
    @inline(__always)
    static func compare(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
        let common = min(lhs.count, rhs.count)
        if common > 0, let left = lhs.baseAddress, let right = rhs.baseAddress {
            let order = memcmp(left, right, common)
            if order != 0 { return Int(order) }
        }
        return lhs.count - rhs.count
    }

    static func patchOffset(_ offset: Int, at position: Int, in bytes: inout [UInt8]) {
        guard let value = UInt32(exactly: offset) else {
            preconditionFailure("an encoded dictionary is larger than 4 GiB")
        }
        precondition(position >= 0 && position + 4 <= bytes.count, "offset patched outside the encoding")
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: position, as: UInt32.self) }
    }
}

/// The progress of decoding a keyed dictionary entry by entry.
struct KeyedDecoding {
    let directory: KeyDirectory
    private let depth: Int
    private(set) var result: [String: Value]
    private var index = 0
    private var previous: UnsafeRawBufferPointer?
    private var key = ""
    private var keyStart = 0

    @inline(never)
    init(reading reader: inout ByteReader) throws(ValueDecodingError) {
        directory = try KeyDirectory(reading: &reader, isRecord: false)
        depth = reader.depth
        result = Dictionary(minimumCapacity: directory.count)
    }

    /// A reader of the next entry's value, after its key was read and checked; nil after the last.
    @inline(never)
    mutating func nextEntry() throws(ValueDecodingError) -> ByteReader? {
        guard index < directory.count else { return nil }
        var entry = try directory.entryReader(index, depth: depth)
        keyStart = entry.offset
        let keyBytes = try RecordCodec.readKey(from: &entry, after: previous)
        key = try RecordCodec.makeKey(keyBytes, at: keyStart, in: entry)
        previous = keyBytes
        index += 1
        return entry
    }

    /// Checks the value filled its entry and stores it.
    @inline(never)
    mutating func finish(_ entry: ByteReader, value: Value) throws(ValueDecodingError) {
        guard entry.isAtEnd else {
            throw entry.error("\(entry.remaining) trailing bytes in the entry of key '\(key)'")
        }
        // Distinct byte sequences can still be equal Strings (canonical equivalence).
        if result.updateValue(value, forKey: key) != nil {
            throw entry.error("duplicate key '\(key)'", at: keyStart)
        }
    }
}

/// The offset table of a keyed dictionary, checked as it is used.
struct KeyDirectory {
    let buffer: UnsafeRawBufferPointer
    let count: Int
    let tableStart: Int
    let entriesStart: Int
    let entriesEnd: Int

    /// Reads the count and skips the table; the reader is left at the first entry. For a record
    /// (`isRecord`), the entries must end exactly at the end of the buffer.
    init(reading reader: inout ByteReader, isRecord: Bool) throws(ValueDecodingError) {
        buffer = reader.buffer
        // Each entry takes a 4-byte offset, a key length and a value tag.
        count = try reader.readLength("dictionary entry count", minimumElementSize: 6)
        tableStart = reader.offset
        _ = try reader.readBytes((count + 1) * 4, "dictionary key directory")
        entriesStart = reader.offset
        let first = Self.load(buffer, at: tableStart)
        guard first == 0 else {
            throw reader.error("first dictionary entry offset is \(first), not 0", at: tableStart)
        }
        let length = Self.load(buffer, at: tableStart + count * 4)
        let fits = isRecord ? length == reader.remaining : length <= reader.remaining
        guard fits else {
            throw reader.error(
                "dictionary entries take \(length) bytes but \(reader.remaining) remain",
                at: tableStart + count * 4
            )
        }
        entriesEnd = entriesStart + length
    }

    /// A reader limited to entry `index`, after checking its offsets.
    func entryReader(_ index: Int, depth: Int) throws(ValueDecodingError) -> ByteReader {
        let position = tableStart + index * 4
        let start = entriesStart + Self.load(buffer, at: position)
        let end = entriesStart + Self.load(buffer, at: position + 4)
        guard start < end, end <= entriesEnd else {
            throw ValueDecodingError(offset: position, problem: "dictionary entry offsets out of order")
        }
        return ByteReader(buffer, offset: start, end: end, depth: depth)
    }

    /// The UInt32 at `position`; callers have checked the table is in the buffer.
    @inline(__always)
    static func load(_ buffer: UnsafeRawBufferPointer, at position: Int) -> Int {
        Int(UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
    }
}
