/// A batch of a source's journal entries, read for a replica in one read transaction, in whole
/// commits: the record insertions a replica can apply as their bytes (``EncodedInsertion``) kept
/// as their bytes, one after the other in one buffer; every other entry decoded.
///
/// ```swift
/// let batch = try source.read { try $0.sourceEntries(after: checkpoint, limit: 10_000) }
/// let outcome = try JournalApplier(store: replica, mode: .replica(source: source.id)).apply(batch, from: 0)
/// ```
struct SourceEntries {
    /// One entry of the batch.
    struct Entry {
        let sequence: UInt64
        let commitID: UInt64
        let form: Form
    }

    enum Form {
        case decoded(JournalEntry)
        /// A record insertion, its positions in ``SourceEntries/bytes``.
        case encoded(EncodedInsertion)
    }

    /// The bytes of the entries kept encoded.
    private(set) var bytes: [UInt8] = []
    private(set) var entries: [Entry] = []

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// Appends the entry stored under `sequence`, kept encoded when ``EncodedInsertion`` vouches
    /// for it, decoded otherwise.
    /// - Throws: ``StoreError/Code/corrupt`` naming the entry, when it does not decode.
    mutating func append(_ entry: UnsafeRawBufferPointer, sequence: UInt64) throws(StoreError) {
        if let (insertion, commitID) = EncodedInsertion.reading(entry, sequence: sequence) {
            append(entry, insertion, sequence: sequence, commitID: commitID)
        } else {
            append(decoded: try JournalCodec.decode(entry, sequence: sequence, keepingRecordsEncoded: true))
        }
    }

    /// Appends the record insertion `entry`, which ``EncodedInsertion/reading(_:sequence:)`` read
    /// as `insertion`, its bytes copied.
    mutating func append(_ entry: UnsafeRawBufferPointer, _ insertion: EncodedInsertion, sequence: UInt64, commitID: UInt64) {
        let moved = insertion.moved(by: bytes.count)
        bytes.append(contentsOf: entry)
        entries.append(Entry(sequence: sequence, commitID: commitID, form: .encoded(moved)))
    }

    /// Appends an entry decoded.
    mutating func append(decoded entry: JournalEntry) {
        entries.append(Entry(sequence: entry.sequence, commitID: entry.commitID, form: .decoded(entry)))
    }

    /// Appends `other`'s entries.
    mutating func append(contentsOf other: SourceEntries) {
        let offset = bytes.count
        bytes.append(contentsOf: other.bytes)
        entries.reserveCapacity(entries.count + other.entries.count)
        for entry in other.entries {
            guard case .encoded(let insertion) = entry.form else { entries.append(entry); continue }
            entries.append(Entry(sequence: entry.sequence, commitID: entry.commitID, form: .encoded(insertion.moved(by: offset))))
        }
    }

    /// Empties the batch, keeping its memory.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
    }

    /// The entry at `index` decoded, as ``JournalCodec/decode(_:sequence:keepingRecordsEncoded:)``
    /// reads it (its inserted record kept encoded): for what only the decoding apply does
    /// (observers, modification times).
    func decoded(_ index: Int, in bytes: UnsafeRawBufferPointer) throws(StoreError) -> JournalEntry {
        let entry = entries[index]
        switch entry.form {
        case .decoded(let decoded):
            return decoded
        case .encoded(let insertion):
            return try JournalCodec.decode(UnsafeRawBufferPointer(rebasing: bytes[insertion.entry]), sequence: entry.sequence, keepingRecordsEncoded: true)
        }
    }
}

extension ReadTransaction {
    /// The journal's entries after `cursor`, for a replica: at least `limit` of them when there
    /// are, and then on to the end of the commit the limit reached, so that the batch holds whole
    /// commits (a snapshot always holds a commit whole).
    /// - Throws: ``JournalRetentionError/Code/cursorExpired`` when the journal was truncated past
    ///   `cursor`; ``StoreError/Code/corrupt`` for an entry that does not decode.
    func sourceEntries(after cursor: UInt64, limit: Int) throws -> SourceEntries {
        try checkCovered(cursor, consumer: nil)
        var batch = SourceEntries()
        if cursor == .max { return batch }
        try transaction.scan(databases.journal, from: StoreLayout.sequenceKey(cursor + 1)) { key, value in
            guard let sequence = StoreLayout.sequence(fromKey: key) else {
                throw StoreError(.corrupt, "a journal key is not an 8-byte sequence", path: store.path)
            }
            // Past the limit, only the rest of the last commit. An entry whose commit cannot be
            // read may be part of it: it is read (and refused when corrupt), so that a commit is
            // never applied cut short.
            if batch.count >= limit, let commit = Self.commitID(of: value), commit != batch.entries.last?.commitID { return false }
            try batch.append(value, sequence: sequence)
            return true
        }
        return batch
    }

    /// The commit id of the encoded journal entry, or nil when it cannot be read.
    private static func commitID(of entry: UnsafeRawBufferPointer) -> UInt64? {
        var reader = ByteReader(entry)
        guard (try? ValueCodec.readVersion(from: &reader)) != nil,
              let directory = try? KeyDirectory(reading: &reader, isRecord: true),
              case .int(let commit)? = commitKey.withUnsafeBytes({ key in try? RecordCodec.find(key, in: directory).value })
        else { return nil }
        return UInt64(bitPattern: commit)
    }

    private static let commitKey = Array("commit".utf8)
}

extension JournalTail {
    /// ``poll()`` for a replica: the entries after the position as ``ReadTransaction/sourceEntries(after:limit:)``
    /// reads them.
    mutating func pollSourceEntries() throws -> SourceEntries? {
        try poll { txn, cursor, limit in
            let batch = try txn.sourceEntries(after: cursor, limit: limit)
            return (batch, batch.count, batch.entries.last?.sequence)
        }
    }
}
