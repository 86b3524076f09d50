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
        let plan = EntryPlan(entry, encodedNew: encodedNew)
        return ByteWriter.encoding(size: plan.size) { plan.write(to: &$0) }
    }

    /// ``encode(_:encodedNew:)``'s bytes, handed to `body` in temporary memory (on the stack when
    /// small) instead of a new array: what a write that puts the entry and keeps nothing of it needs.
    static func withEncoding<R>(
        _ entry: JournalEntry, encodedNew: [UInt8]?, _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        let plan = EntryPlan(entry, encodedNew: encodedNew)
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: plan.size) { buffer in
            var writer = ByteWriter(buffer)
            plan.write(to: &writer)
            precondition(writer.offset == plan.size, "encoded size mismatch")
            return try body(UnsafeRawBufferPointer(buffer))
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
