/// Writes a keyed dictionary (the layout of ``RecordCodec``) whose keys the caller supplies already
/// in UTF-8 byte order, appending each value straight into ``bytes``: no intermediate dictionary,
/// no sort. A record patched in place (``RecordCodec/replacing(_:with:in:)``) is written this way.
///
/// ```swift
/// var writer = KeyedWriter(count: 2, into: [ValueCodec.version])
/// writer.key("a"); ValueCodec.encode(1, into: &writer.bytes)
/// writer.key("b"); ValueCodec.encode("x", into: &writer.bytes)
/// let record = writer.finish()   // == RecordCodec.encode(["a": 1, "b": "x"])
/// ```
struct KeyedWriter {
    /// The output so far; append a value's encoding here after each ``key(_:)``.
    var bytes: [UInt8]
    private let count: Int
    private let tableStart: Int
    private let entriesStart: Int
    private var index = 0

    /// Starts a dictionary of exactly `count` entries after whatever `bytes` holds.
    /// `reserving` bytes are reserved for the entries beyond a guess of 24 per entry.
    init(count: Int, into bytes: consuming [UInt8], reserving extra: Int = 0) {
        bytes.reserveCapacity(bytes.count + 16 + count * 24 + extra)
        ValueCodec.appendVarint(UInt64(count), to: &bytes)
        tableStart = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: (count + 1) * 4))
        entriesStart = bytes.count
        self.bytes = bytes
        self.count = count
    }

    /// Starts the next entry and writes its key; keys must come in strictly increasing UTF-8 order.
    mutating func key(_ key: String) {
        beginEntry()
        ValueCodec.appendVarint(UInt64(key.utf8.count), to: &bytes)
        ValueCodec.appendUTF8(key, to: &bytes)
    }

    /// ``key(_:)`` for a key known when compiling (a journal entry's fields).
    mutating func key(_ key: StaticString) {
        beginEntry()
        ValueCodec.appendVarint(UInt64(key.utf8CodeUnitCount), to: &bytes)
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    }

    /// Starts the next entry, whose key and value the caller appends to ``bytes`` as they are
    /// (an entry copied from another encoding).
    mutating func beginEntry() {
        precondition(index < count, "more entries than the count given to KeyedWriter")
        RecordCodec.patchOffset(bytes.count - entriesStart, at: tableStart + index * 4, in: &bytes)
        index += 1
    }

    /// Closes the dictionary and returns the bytes.
    consuming func finish() -> [UInt8] {
        precondition(index == count, "fewer keys than the count given to KeyedWriter")
        RecordCodec.patchOffset(bytes.count - entriesStart, at: tableStart + count * 4, in: &bytes)
        return bytes
    }
}
