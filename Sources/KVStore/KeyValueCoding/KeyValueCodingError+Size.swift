/// The size limits that keep every record and every journal entry exportable and replicable.
///
/// A journal entry travels in one frame of a journal stream (`kvstore journal export`, replication
/// over pipes and TCP), and a frame holds less than ``JournalStream/maxPayload`` bytes (64 MiB). An
/// insertion's or deletion's entry holds the whole record, so a record may take at most
/// ``maximumRecordSize`` bytes encoded, leaving room for the entry's other fields; a change of one
/// key holds its old and new values, which together must fit in a frame too. Writes past either
/// limit fail with ``Code/tooLarge`` before anything is written, so the store never holds what its
/// streams cannot carry.
extension KeyValueCodingError {
    /// The largest encoded record, in bytes: 64 KiB less than a journal stream frame.
    public static let maximumRecordSize = JournalStream.maxPayload - (64 << 10)

    /// A write that would make the record `size` bytes, past ``maximumRecordSize``.
    ///
    /// ```swift
    /// throw KeyValueCodingError.recordTooLarge(size: 70_000_000, keyPath: "scan", ref: doc)
    /// // doc/1: cannot write 'scan': the record would take 70000000 bytes, more than 67043328 (...)
    /// ```
    public static func recordTooLarge(size: Int, keyPath: String?, ref: RecordRef) -> Self {
        let subject = keyPath.map { "write '\($0)'" } ?? "insert the record"
        return Self(
            code: .tooLarge,
            message: "cannot \(subject): the record would take \(size) bytes, more than \(maximumRecordSize) "
                + "(a journal stream frame, less room for the entry, so that every change can be exported and replicated)",
            keyPath: keyPath, ref: ref)
    }

    /// A change whose journal entry would take `size` bytes, more than a journal stream frame.
    public static func entryTooLarge(size: Int, keyPath: String?, ref: RecordRef) -> Self {
        let subject = keyPath.map { "change '\($0)'" } ?? "change the record"
        return Self(
            code: .tooLarge,
            message: "cannot \(subject): its journal entry (old and new value) would take \(size) bytes, more than a "
                + "journal stream frame holds (\(JournalStream.maxPayload - 1)); remove the key first, then set it",
            keyPath: keyPath, ref: ref)
    }

    /// An evaluation of `keyPath` that would go more than ``KeyValuePath/maximumDepth`` levels
    /// deep (components, and arrays a key maps), quoting only the path's start.
    static func evaluatedTooDeeply(keyPath: String) -> Self {
        Self(
            code: .nestedTooDeeply,
            message: "cannot evaluate '\(KeyValuePath.quotedStart(of: keyPath))': it goes through more than "
                + "\(KeyValuePath.maximumDepth) levels of values and arrays (references to arrays of references)",
            keyPath: keyPath)
    }
}
