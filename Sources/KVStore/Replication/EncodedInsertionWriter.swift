import Foundation
import LMDB

/// Applies ``EncodedInsertion``s in one write transaction as their bytes: the record stored as it
/// is, and the journal entry put together from the source entry's change, new and ref values with
/// the replica's sequence, commit id, origin and time, and (an entry with an origin) the source
/// entry's stamp — byte for byte what
/// ``WriteTransaction/apply(_:)`` stores and journals for the decoded entry — written in one pass
/// into a buffer of its size. Its buffers are used again for every entry, and records inserted are
/// counted per run of one kind: nothing is allocated per entry.
///
/// Only for a transaction whose store has no observers in this process (they are told of decoded
/// entries), and records of kinds the store's catalog does not declare and the store does not
/// sync (``applies(_:in:)``): a declared kind's rules are checked, and its modification times and
/// a synced kind's sync state kept, on decoded records.
///
/// ```swift
/// var writer = EncodedInsertionWriter(transaction: txn)
/// if try writer.applies(insertion, in: bytes), let problem = try writer.insert(insertion, origin: origin, in: bytes) { … }
/// try writer.finish()   // before the transaction commits: the record counts
/// ```
struct EncodedInsertionWriter {
    let transaction: WriteTransaction
    private var key: [UInt8] = []
    private var record: [UInt8] = []
    private var entry: [UInt8] = []
    /// The kind of the records counted last, how many, and whether the catalog declares it.
    private var kind: [UInt8] = []
    private var inserted = 0
    private var isDeclared = false

    init(transaction: WriteTransaction) {
        self.transaction = transaction
    }

    /// Whether ``insert(_:origin:in:)`` can apply `insertion`: the catalog does not declare its
    /// kind, and the store does not sync it (the decoding apply checks a declared kind's rules,
    /// stamps modification times and keeps the sync state).
    mutating func applies(_ insertion: EncodedInsertion, in bytes: UnsafeRawBufferPointer) throws -> Bool {
        try count(kind: UnsafeRawBufferPointer(rebasing: bytes[insertion.kind]))
        return !isDeclared
    }

    /// The insertion's record reference as text (`kind/id`: the two are adjacent in the entry).
    private static func ref(of insertion: EncodedInsertion, in bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[insertion.kind.lowerBound ..< insertion.id.upperBound]), as: UTF8.self)
    }

    /// Stores the record and journals it with `origin` (its store id as lowercase text, and its
    /// sequence there; none for a rebuild's local entries).
    /// - Returns: nil when applied; when the record exists already, what the decoding apply says,
    ///   and nothing of the entry is written.
    /// - Throws: `KeyValueCodingError.recordTooLarge` past the record limit, as the decoding apply.
    mutating func insert(_ insertion: EncodedInsertion, origin: (store: UnsafeRawBufferPointer, sequence: UInt64)?, in bytes: UnsafeRawBufferPointer) throws -> String? {
        let txn = transaction
        try count(kind: UnsafeRawBufferPointer(rebasing: bytes[insertion.kind]))
        let kind = UnsafeRawBufferPointer(rebasing: bytes[insertion.kind]), id = UnsafeRawBufferPointer(rebasing: bytes[insertion.id])
        let fields = UnsafeRawBufferPointer(rebasing: bytes[insertion.record.lowerBound + 1 ..< insertion.record.upperBound])
        // What the decoding apply refuses too (a source written before the limit), with the same
        // error: the replica's own entry, with its origin, must fit in a stream frame.
        if 1 + fields.count > KeyValueCodingError.maximumRecordSize {
            throw KeyValueCodingError.recordTooLarge(size: 1 + fields.count, keyPath: nil, ref: try RecordRef(Self.ref(of: insertion, in: bytes)))
        }
        Self.write(into: &key, count: kind.count + 1 + id.count) { out in
            out.bytes(kind)
            out.byte(0)
            out.bytes(id)
        }
        Self.write(into: &record, count: 1 + fields.count) { out in
            out.byte(ValueCodec.version)
            out.bytes(fields)
        }
        guard try txn.transaction.insert(key, record, in: txn.databases.records) else {
            return "\(Self.ref(of: insertion, in: bytes)) to insert already exists"
        }
        inserted += 1
        let position = try txn.nextJournalPosition()
        try journal(insertion, at: position, origin: origin, in: bytes)
        return nil
    }

    /// Writes the journal entry: the fields of ``JournalCodec/encode(_:encodedNew:)``, in its
    /// layout (a keyed dictionary, see ``RecordCodec``), straight into a buffer of its size.
    private mutating func journal(
        _ insertion: EncodedInsertion, at position: (sequence: UInt64, commit: UInt64),
        origin: (store: UnsafeRawBufferPointer, sequence: UInt64)?, in bytes: UnsafeRawBufferPointer
    ) throws {
        let record = UnsafeRawBufferPointer(rebasing: bytes[insertion.record])
        let reference = UnsafeRawBufferPointer(rebasing: bytes[insertion.reference])
        let commit = ValueCodec.zigZag(Int64(bitPattern: position.commit)), sequence = ValueCodec.zigZag(Int64(bitPattern: position.sequence))
        // An entry from another store keeps its stamp; a rebuild's local entry takes this store's.
        let stampTime = origin == nil ? try transaction.nextStampTime() : insertion.stamp
        transaction.lastJournaledStamp = stampTime
        let stamp = ValueCodec.zigZag(Int64(bitPattern: stampTime.packed))
        let time = transaction.journalTimestamp.timeIntervalSinceReferenceDate.bitPattern
        // Each entry: the key's length and bytes, then the tagged value.
        var sizes = 7 + EncodedInsertion.insertedChange.count + 8 + ValueCodec.varintSize(commit) + 4 + record.count
            + 4 + reference.count + 10 + ValueCodec.varintSize(sequence) + 7 + ValueCodec.varintSize(stamp) + 10 + 9
        if let origin { sizes += 7 + ByteWriter.originSize(sequence: origin.sequence, storeCount: origin.store.count) }
        let count = origin == nil ? 7 : 8
        let tableStart = 2, entriesStart = 2 + (count + 1) * 4
        Self.write(into: &entry, count: entriesStart + sizes) { out in
            out.byte(ValueCodec.version)
            out.byte(UInt8(count))
            out.offset = entriesStart
            var index = 0
            func key(_ name: StaticString) {
                out.store(UInt32(out.offset - entriesStart), at: tableStart + index * 4)
                index += 1
                out.byte(UInt8(name.utf8CodeUnitCount))
                out.bytes(UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            }
            key("change")
            EncodedInsertion.insertedChange.withUnsafeBytes { out.bytes($0) }
            key("commit")
            out.byte(ValueCodec.Tag.int)
            out.varint(commit)
            key("new")
            out.bytes(record)
            if let origin {
                key("origin")
                out.origin(sequence: origin.sequence, store: origin.store)
            }
            key("ref")
            out.bytes(reference)
            key("sequence")
            out.byte(ValueCodec.Tag.int)
            out.varint(sequence)
            key("stamp")
            out.byte(ValueCodec.Tag.int)
            out.varint(stamp)
            key("timestamp")
            out.byte(ValueCodec.Tag.date)
            out.uint64(time)
            out.store(UInt32(out.offset - entriesStart), at: tableStart + count * 4)
        }
        let txn = transaction
        try withUnsafeBytes(of: position.sequence.bigEndian) { key in
            try entry.withUnsafeBytes { value in try txn.transaction.put(key, value, in: txn.databases.journal, append: true) }
        }
    }

    /// Makes `buffer` `count` bytes long (keeping its storage) and fills it with `body`, which
    /// must write every byte.
    private static func write(into buffer: inout [UInt8], count: Int, _ body: (inout ByteWriter) -> Void) {
        if buffer.count < count {
            buffer.append(contentsOf: repeatElement(0, count: count - buffer.count))
        } else if buffer.count > count {
            buffer.removeLast(buffer.count - count)
        }
        buffer.withUnsafeMutableBufferPointer { bytes in
            var out = ByteWriter(bytes)
            body(&out)
            precondition(out.offset == count, "an encoded insertion's buffer was not filled as sized")
        }
    }

    /// Counts the records inserted of the kind before, when `kind` is another one.
    private mutating func count(kind: UnsafeRawBufferPointer) throws {
        guard !kind.elementsEqual(self.kind) else { return }
        try finish()
        self.kind.removeAll(keepingCapacity: true)
        self.kind.append(contentsOf: kind)
        let catalog = try transaction.kindCatalog(), name = String(decoding: kind, as: UTF8.self)
        isDeclared = try catalog.declares(name) || catalog.sync?.syncs(name) == true
    }

    /// Counts the records inserted and asks the catalog again about the next record's kind: after
    /// an entry that changed the catalog (a kind declaration).
    mutating func forgetKind() throws {
        try finish()
        kind.removeAll(keepingCapacity: true)
    }

    /// Adds the records inserted to their kind's count; call it before the transaction ends.
    mutating func finish() throws {
        if inserted > 0 { try transaction.adjustCount(of: String(decoding: kind, as: UTF8.self), by: inserted) }
        inserted = 0
    }
}
