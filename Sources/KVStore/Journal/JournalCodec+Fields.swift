import Foundation

/// A journal entry's fields in their keys' byte order, walked twice by ``JournalCodec/encode(_:encodedNew:)``:
/// once to size the entry (``EntrySize``), once to write it into memory of that size
/// (``EntryWriter``), with no intermediate array, append or patched offset.
struct EntryFields {
    let entry: JournalEntry
    /// The inserted record's encoding (version byte first), embedded as it is after the
    /// dictionary tag; nil to write `new` as a value.
    let record: [UInt8]?
    /// `new` and `old`, sized, their keys in NFC (``ValueCodec/sizedForEncoding(_:)``).
    let new: (size: Int, value: Value)?
    let old: (size: Int, value: Value)?

    /// Hands every field present to `sink`, in the order of their keys' bytes.
    func write(to sink: inout some EntrySink) {
        sink.key("change")
        sink.scalar(.string(entry.change.rawValue))
        sink.key("commit")
        sink.scalar(.int(Int64(bitPattern: entry.commitID)))
        if entry.isDerived {
            sink.key("derived")
            sink.scalar(.bool(true))
        }
        if let indexes = entry.indexes {
            sink.key("indexes")
            sink.indexes(indexes)
        }
        if let keyPath = entry.keyPath {
            sink.key("keyPath")
            sink.scalar(.string(keyPath))
        }
        if let record {
            sink.key("new")
            sink.record(record)
        } else if let new {
            sink.key("new")
            sink.value(new.value, size: new.size)
        }
        if let old {
            sink.key("old")
            sink.value(old.value, size: old.size)
        }
        if let origin = entry.origin {
            sink.key("origin")
            sink.origin(sequence: origin.sequence, store: origin.storeID.lowercasedText)
        }
        sink.key("ref")
        sink.scalar(.reference(entry.ref))
        sink.key("sequence")
        sink.scalar(.int(Int64(bitPattern: entry.sequence)))
        if let stamp = entry.stamp {
            sink.key("stamp")
            sink.scalar(.int(Int64(bitPattern: stamp.packed)))
        }
        sink.key("timestamp")
        sink.scalar(.date(entry.timestamp))
    }
}

/// An entry's fields, sized: ``JournalCodec/encode(_:encodedNew:)``'s layout (version, field
/// count, offset directory, then the fields in their keys' order).
struct EntryPlan {
    let fields: EntryFields
    let count: Int
    let tableStart: Int
    let entriesStart: Int
    /// The bytes of the whole entry.
    let size: Int

    init(_ entry: JournalEntry, encodedNew: [UInt8]?) {
        let record = entry.hasNewValue ? encodedNew ?? entry.encodedNewRecord : nil
        let embedsRecord = record?.first == ValueCodec.version
        // The two fields that may be containers, sized once with their keys in NFC at every level.
        let new = embedsRecord ? nil : entry.newValue.map(ValueCodec.sizedForEncoding)
        let old = entry.oldValue.map(ValueCodec.sizedForEncoding)
        fields = EntryFields(entry: entry, record: embedsRecord ? record : nil, new: new, old: old)
        var measure = EntrySize()
        fields.write(to: &measure)
        count = measure.count
        tableStart = 1 + ValueCodec.varintSize(UInt64(measure.count))
        entriesStart = tableStart + (measure.count + 1) * 4
        size = entriesStart + measure.size
    }

    /// Writes the entry's `size` bytes from the writer's position (its start).
    func write(to writer: inout ByteWriter) {
        writer.byte(ValueCodec.version)
        writer.varint(UInt64(count))
        writer.store(0, at: tableStart)
        writer.offset = entriesStart
        var sink = EntryWriter(writer: writer, tableStart: tableStart, entriesStart: entriesStart)
        fields.write(to: &sink)
        sink.writer.store(UInt32(sink.writer.offset - entriesStart), at: tableStart + count * 4)
        writer = sink.writer
    }
}

/// What ``EntryFields/write(to:)`` hands its fields to.
protocol EntrySink {
    /// Starts the next entry: its key.
    mutating func key(_ name: StaticString)
    /// A value without dictionaries (keys need no composing).
    mutating func scalar(_ value: Value)
    /// A value of `size` bytes tagged, its keys in NFC already.
    mutating func value(_ value: Value, size: Int)
    /// A record's encoding, written as a tagged dictionary.
    mutating func record(_ bytes: [UInt8])
    /// An array of ints.
    mutating func indexes(_ indexes: [Int])
    /// `{"sequence": sequence, "store": store}`.
    mutating func origin(sequence: UInt64, store: String)
}

/// Counts an entry's fields and the bytes of their entries (keys and tagged values).
struct EntrySize: EntrySink {
    private(set) var count = 0
    private(set) var size = 0

    mutating func key(_ name: StaticString) {
        count += 1
        size += 1 + name.utf8CodeUnitCount  // field names are shorter than 128 bytes
    }

    mutating func scalar(_ value: Value) { size += ValueCodec.encodedSize(of: value) }
    mutating func value(_ value: Value, size: Int) { self.size += size }
    mutating func record(_ bytes: [UInt8]) { size += bytes.count }

    mutating func indexes(_ indexes: [Int]) {
        size += 1 + ValueCodec.varintSize(UInt64(indexes.count))
        for index in indexes { size += 1 + ValueCodec.varintSize(ValueCodec.zigZag(Int64(index))) }
    }

    mutating func origin(sequence: UInt64, store: String) {
        size += ByteWriter.originSize(sequence: sequence, storeCount: store.utf8.count)
    }
}

/// Writes an entry's fields, each key's offset into the directory as its entry starts.
struct EntryWriter: EntrySink {
    var writer: ByteWriter
    let tableStart: Int
    let entriesStart: Int
    private var index = 0

    init(writer: ByteWriter, tableStart: Int, entriesStart: Int) {
        self.writer = writer
        self.tableStart = tableStart
        self.entriesStart = entriesStart
    }

    mutating func key(_ name: StaticString) {
        writer.store(UInt32(writer.offset - entriesStart), at: tableStart + index * 4)
        index += 1
        writer.byte(UInt8(name.utf8CodeUnitCount))
        writer.bytes(UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }

    mutating func scalar(_ value: Value) { writer.tagged(value) }
    mutating func value(_ value: Value, size: Int) { writer.tagged(value) }

    mutating func record(_ bytes: [UInt8]) {
        writer.byte(ValueCodec.Tag.dictionary)
        bytes.withUnsafeBytes { writer.bytes(UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }
    }

    mutating func indexes(_ indexes: [Int]) {
        writer.byte(ValueCodec.Tag.array)
        writer.varint(UInt64(indexes.count))
        for index in indexes {
            writer.byte(ValueCodec.Tag.int)
            writer.varint(ValueCodec.zigZag(Int64(index)))
        }
    }

    mutating func origin(sequence: UInt64, store: String) {
        var store = store
        store.withUTF8 { writer.origin(sequence: sequence, store: UnsafeRawBufferPointer($0)) }
    }
}

extension ByteWriter {
    /// The bytes ``origin(sequence:store:)`` writes.
    static func originSize(sequence: UInt64, storeCount: Int) -> Int {
        1 + 1 + 3 * 4 + originEntrySizes(sequence: sequence, storeCount: storeCount).total
    }

    /// A journal entry's origin, tagged: `{"sequence": sequence, "store": store}` (the store id as
    /// lowercase text), in the keyed layout, as the encoder writes it.
    mutating func origin(sequence: UInt64, store storeText: UnsafeRawBufferPointer) {
        let sizes = Self.originEntrySizes(sequence: sequence, storeCount: storeText.count)
        byte(ValueCodec.Tag.dictionary)
        byte(2)
        store(0, at: offset)
        store(UInt32(sizes.sequence), at: offset + 4)
        store(UInt32(sizes.total), at: offset + 8)
        offset += 12
        byte(8)
        bytes(UnsafeRawBufferPointer(start: ("sequence" as StaticString).utf8Start, count: 8))
        byte(ValueCodec.Tag.int)
        varint(ValueCodec.zigZag(Int64(bitPattern: sequence)))
        byte(5)
        bytes(UnsafeRawBufferPointer(start: ("store" as StaticString).utf8Start, count: 5))
        byte(ValueCodec.Tag.string)
        varint(UInt64(storeText.count))
        bytes(storeText)
    }

    /// The sizes of the origin's two entries (key and tagged value): `sequence`'s, and both.
    private static func originEntrySizes(sequence: UInt64, storeCount: Int) -> (sequence: Int, total: Int) {
        let first = 10 + ValueCodec.varintSize(ValueCodec.zigZag(Int64(bitPattern: sequence)))
        return (first, first + 7 + ValueCodec.varintSize(UInt64(storeCount)) + storeCount)
    }
}
