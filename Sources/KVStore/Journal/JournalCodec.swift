/// The binary encoding of journal entries in the `journal` database: the entry's
/// ``JournalEntry/dictionary`` in the keyed ``RecordCodec`` encoding.
enum JournalCodec {
    static func encode(_ entry: JournalEntry) -> [UInt8] {
        RecordCodec.encode(entry.dictionary)
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, sequence: UInt64) throws(StoreError) -> JournalEntry {
        do {
            return try JournalEntry(dictionary: RecordCodec.decode(bytes))
        } catch {
            throw StoreError(.corrupt, "journal entry \(sequence) is corrupt: \(error)")
        }
    }
}
