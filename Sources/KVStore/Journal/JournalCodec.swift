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
        let record = entry.hasNewValue ? encodedNew ?? entry.encodedNewRecord : nil
        let embedsRecord = record?.first == ValueCodec.version
        // The two fields that may be containers, sized once with their keys in NFC at every level.
        let new = embedsRecord ? nil : entry.newValue.map(ValueCodec.sizedForEncoding)
        let old = entry.oldValue.map(ValueCodec.sizedForEncoding)
        let fields = EntryFields(entry: entry, record: embedsRecord ? record : nil, new: new, old: old)
        var measure = EntrySize()
        fields.write(to: &measure)
        let tableStart = 1 + ValueCodec.varintSize(UInt64(measure.count))
        let entriesStart = tableStart + (measure.count + 1) * 4
        return ByteWriter.encoding(size: entriesStart + measure.size) { writer in
            writer.byte(ValueCodec.version)
            writer.varint(UInt64(measure.count))
            writer.store(0, at: tableStart)
            writer.offset = entriesStart
            var sink = EntryWriter(writer: writer, tableStart: tableStart, entriesStart: entriesStart)
            fields.write(to: &sink)
            sink.writer.store(UInt32(sink.writer.offset - entriesStart), at: tableStart + measure.count * 4)
            writer = sink.writer
        }
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
