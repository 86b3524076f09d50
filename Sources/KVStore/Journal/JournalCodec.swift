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
    /// them instead of encoding the dictionary again; an entry read with its record left encoded
    /// embeds that record's bytes as they are.
    static func encode(_ entry: JournalEntry, encodedNew: [UInt8]? = nil) -> [UInt8] {
        // change, commit, ref, sequence and timestamp, plus the optional fields present.
        let hasNewValue = entry.hasNewValue
        var count = 5 + (entry.stamp != nil ? 1 : 0) + (entry.isDerived ? 1 : 0) + (entry.indexes != nil ? 1 : 0) + (entry.keyPath != nil ? 1 : 0)
        count += (hasNewValue ? 1 : 0) + (entry.oldValue != nil ? 1 : 0) + (entry.origin != nil ? 1 : 0)
        let record = hasNewValue ? encodedNew ?? entry.encodedNewRecord : nil
        var writer = KeyedWriter(count: count, into: [ValueCodec.version], reserving: record?.count ?? 0)
        writer.key("change" as StaticString)
        ValueCodec.encode(.string(entry.change.rawValue), into: &writer.bytes)
        writer.key("commit" as StaticString)
        ValueCodec.encode(.int(Int64(bitPattern: entry.commitID)), into: &writer.bytes)
        if entry.isDerived {
            writer.key("derived" as StaticString)
            ValueCodec.encode(.bool(true), into: &writer.bytes)
        }
        if let indexes = entry.indexes {
            writer.key("indexes" as StaticString)
            ValueCodec.encode(.array(indexes.map { .int(Int64($0)) }), into: &writer.bytes)
        }
        if let keyPath = entry.keyPath {
            writer.key("keyPath" as StaticString)
            ValueCodec.encode(.string(keyPath), into: &writer.bytes)
        }
        if hasNewValue {
            writer.key("new" as StaticString)
            if let record, record.first == ValueCodec.version {
                writer.bytes.append(ValueCodec.Tag.dictionary)
                record.withUnsafeBufferPointer { writer.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0.dropFirst())) }
            } else if let new = entry.newValue {
                ValueCodec.encode(new, into: &writer.bytes)
            }
        }
        if let old = entry.oldValue {
            writer.key("old" as StaticString)
            ValueCodec.encode(old, into: &writer.bytes)
        }
        if let origin = entry.origin {
            writer.key("origin" as StaticString)
            // {"sequence": …, "store": …}, written in key order without building the dictionary.
            var bytes = writer.bytes
            writer.bytes = []
            bytes.append(ValueCodec.Tag.dictionary)
            var inner = KeyedWriter(count: 2, into: bytes)
            inner.key("sequence" as StaticString)
            ValueCodec.encode(.int(Int64(bitPattern: origin.sequence)), into: &inner.bytes)
            inner.key("store" as StaticString)
            ValueCodec.encode(.string(origin.storeID.lowercasedText), into: &inner.bytes)
            writer.bytes = inner.finish()
        }
        writer.key("ref" as StaticString)
        ValueCodec.encode(.reference(entry.ref), into: &writer.bytes)
        writer.key("sequence" as StaticString)
        ValueCodec.encode(.int(Int64(bitPattern: entry.sequence)), into: &writer.bytes)
        if let stamp = entry.stamp {
            writer.key("stamp" as StaticString)
            ValueCodec.encode(.int(Int64(bitPattern: stamp.packed)), into: &writer.bytes)
        }
        writer.key("timestamp" as StaticString)
        ValueCodec.encode(.date(entry.timestamp), into: &writer.bytes)
        return writer.finish()
    }

    /// Decodes the entry stored under `sequence`. With `keepingRecordsEncoded`, an inserted
    /// record that checks out (``RecordCodec/isCanonicalRecord(_:)``) is kept as its bytes, for
    /// an applier to write as they are (``JournalEntry/encodedNewRecord``).
    static func decode(_ bytes: UnsafeRawBufferPointer, sequence: UInt64, keepingRecordsEncoded: Bool = false) throws(StoreError) -> JournalEntry {
        let entry: JournalEntry
        do {
            // The generic decoder for anything not in the written shape: it names the problem.
            entry = try decodeDirectly(bytes, keepingRecordsEncoded: keepingRecordsEncoded) ?? JournalEntry(dictionary: RecordCodec.decode(bytes))
        } catch {
            throw StoreError(.corrupt, "journal entry \(sequence) is corrupt: \(error)")
        }
        guard entry.sequence == sequence else {
            throw StoreError(.corrupt, "journal entry \(sequence) is corrupt: it says it is entry \(entry.sequence)")
        }
        return entry
    }
}
