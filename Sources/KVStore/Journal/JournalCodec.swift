import Foundation

/// The binary encoding of journal entries in the `journal` database: the entry's
/// ``JournalEntry/dictionary`` in the keyed ``RecordCodec`` encoding.
///
/// Entries are written straight from their fields (keys in their fixed byte order, no dictionary
/// built, no sort) and read back through the generic decoder, so the two can be checked against
/// each other: `encode(entry) == RecordCodec.encode(entry.dictionary)`.
enum JournalCodec {
    /// Encodes `entry`. When the entry's new value is a whole record already encoded by
    /// ``RecordCodec/encode(_:)`` (a record insertion), pass those bytes as `encodedNew` to embed
    /// them instead of encoding the dictionary again.
    static func encode(_ entry: JournalEntry, encodedNew: [UInt8]? = nil) -> [UInt8] {
        // change, commit, ref, sequence and timestamp, plus the optional fields present.
        var count = 5
        for present in [entry.isDerived, entry.indexes != nil, entry.keyPath != nil,
                        entry.newValue != nil, entry.oldValue != nil, entry.origin != nil] where present {
            count += 1
        }
        var writer = KeyedWriter(count: count, into: [ValueCodec.version])
        writer.key("change")
        ValueCodec.encode(.string(entry.change.rawValue), into: &writer.bytes)
        writer.key("commit")
        ValueCodec.encode(.int(Int64(bitPattern: entry.commitID)), into: &writer.bytes)
        if entry.isDerived {
            writer.key("derived")
            ValueCodec.encode(.bool(true), into: &writer.bytes)
        }
        if let indexes = entry.indexes {
            writer.key("indexes")
            ValueCodec.encode(.array(indexes.map { .int(Int64($0)) }), into: &writer.bytes)
        }
        if let keyPath = entry.keyPath {
            writer.key("keyPath")
            ValueCodec.encode(.string(keyPath), into: &writer.bytes)
        }
        if let new = entry.newValue {
            writer.key("new")
            if let encodedNew, encodedNew.first == ValueCodec.version {
                writer.bytes.append(ValueCodec.Tag.dictionary)
                writer.bytes.append(contentsOf: encodedNew.dropFirst())
            } else {
                ValueCodec.encode(new, into: &writer.bytes)
            }
        }
        if let old = entry.oldValue {
            writer.key("old")
            ValueCodec.encode(old, into: &writer.bytes)
        }
        if let origin = entry.origin {
            writer.key("origin")
            // {"sequence": …, "store": …}, written in key order without building the dictionary.
            var bytes = writer.bytes
            writer.bytes = []
            bytes.append(ValueCodec.Tag.dictionary)
            var inner = KeyedWriter(count: 2, into: bytes)
            inner.key("sequence")
            ValueCodec.encode(.int(Int64(bitPattern: origin.sequence)), into: &inner.bytes)
            inner.key("store")
            ValueCodec.encode(.string(origin.storeID.lowercasedText), into: &inner.bytes)
            writer.bytes = inner.finish()
        }
        writer.key("ref")
        ValueCodec.encode(.reference(entry.ref), into: &writer.bytes)
        writer.key("sequence")
        ValueCodec.encode(.int(Int64(bitPattern: entry.sequence)), into: &writer.bytes)
        writer.key("timestamp")
        ValueCodec.encode(.date(entry.timestamp), into: &writer.bytes)
        return writer.finish()
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, sequence: UInt64) throws(StoreError) -> JournalEntry {
        let entry: JournalEntry
        do {
            // The generic decoder for anything not in the written shape: it names the problem.
            entry = try decodeDirectly(bytes) ?? JournalEntry(dictionary: RecordCodec.decode(bytes))
        } catch {
            throw StoreError(.corrupt, "journal entry \(sequence) is corrupt: \(error)")
        }
        guard entry.sequence == sequence else {
            throw StoreError(.corrupt, "journal entry \(sequence) is corrupt: it says it is entry \(entry.sequence)")
        }
        return entry
    }
}
