import Foundation
import LMDB

/// Applies ``EncodedInsertion``s in one write transaction as their bytes: the record stored as it
/// is, and the journal entry put together from the source entry's change, new and ref values with
/// the replica's sequence, commit id, origin and time — byte for byte what
/// ``WriteTransaction/apply(_:)`` stores and journals for the decoded entry. Its buffers are used
/// again for every entry, and records inserted are counted per run of one kind: nothing is
/// allocated per entry.
///
/// Only for a transaction whose store has no observers in this process (they are told of decoded
/// entries), and records of kinds that keep no modification times (``applies(_:in:)``).
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
    /// The kind of the records counted last, how many, and whether it keeps modification times.
    private var kind: [UInt8] = []
    private var inserted = 0
    private var tracksModificationTimes = false

    init(transaction: WriteTransaction) {
        self.transaction = transaction
    }

    /// Whether ``insert(_:origin:in:)`` can apply `insertion`: its kind keeps no modification times
    /// (the decoding apply stamps them).
    mutating func applies(_ insertion: EncodedInsertion, in bytes: UnsafeRawBufferPointer) throws -> Bool {
        try count(kind: UnsafeRawBufferPointer(rebasing: bytes[insertion.kind]))
        return !tracksModificationTimes
    }

    /// Stores the record and journals it with `origin` (its store id as lowercase text, and its
    /// sequence there; none for a rebuild's local entries).
    /// - Returns: nil when applied; when the record exists already, what the decoding apply says,
    ///   and nothing of the entry is written.
    mutating func insert(_ insertion: EncodedInsertion, origin: (store: UnsafeRawBufferPointer, sequence: UInt64)?, in bytes: UnsafeRawBufferPointer) throws -> String? {
        let txn = transaction
        try count(kind: UnsafeRawBufferPointer(rebasing: bytes[insertion.kind]))
        key.removeAll(keepingCapacity: true)
        key.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[insertion.kind]))
        key.append(0)
        key.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[insertion.id]))
        record.removeAll(keepingCapacity: true)
        record.append(ValueCodec.version)
        record.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[insertion.record.lowerBound + 1 ..< insertion.record.upperBound]))
        guard try txn.transaction.insert(key, record, in: txn.databases.records) else {
            let ref = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[insertion.kind.lowerBound ..< insertion.id.upperBound]), as: UTF8.self)
            return "\(ref) to insert already exists"
        }
        inserted += 1
        let position = try txn.nextJournalPosition()
        try journal(insertion, at: position, origin: origin, in: bytes)
        return nil
    }

    /// Writes the journal entry: ``JournalCodec/encode(_:encodedNew:)``'s fields in its order.
    private mutating func journal(
        _ insertion: EncodedInsertion, at position: (sequence: UInt64, commit: UInt64),
        origin: (store: UnsafeRawBufferPointer, sequence: UInt64)?, in bytes: UnsafeRawBufferPointer
    ) throws {
        var buffer: [UInt8] = []
        swap(&buffer, &entry)  // the buffer of the previous entry, handed over without copying
        buffer.removeAll(keepingCapacity: true)
        buffer.append(ValueCodec.version)
        var writer = KeyedWriter(count: origin == nil ? 6 : 7, into: consume buffer, reserving: bytes[insertion.entry].count)
        writer.key("change" as StaticString)
        writer.bytes.append(contentsOf: EncodedInsertion.insertedChange)
        writer.key("commit" as StaticString)
        ValueCodec.encode(.int(Int64(bitPattern: position.commit)), into: &writer.bytes)
        writer.key("new" as StaticString)
        writer.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[insertion.record]))
        if let origin {
            writer.key("origin" as StaticString)
            var outer = writer.bytes
            writer.bytes = []
            outer.append(ValueCodec.Tag.dictionary)
            var inner = KeyedWriter(count: 2, into: consume outer)
            inner.key("sequence" as StaticString)
            ValueCodec.encode(.int(Int64(bitPattern: origin.sequence)), into: &inner.bytes)
            inner.key("store" as StaticString)
            inner.bytes.append(ValueCodec.Tag.string)
            ValueCodec.appendVarint(UInt64(origin.store.count), to: &inner.bytes)
            inner.bytes.append(contentsOf: origin.store)
            writer.bytes = inner.finish()
        }
        writer.key("ref" as StaticString)
        writer.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[insertion.reference]))
        writer.key("sequence" as StaticString)
        ValueCodec.encode(.int(Int64(bitPattern: position.sequence)), into: &writer.bytes)
        writer.key("timestamp" as StaticString)
        ValueCodec.encode(.date(transaction.journalTimestamp), into: &writer.bytes)
        entry = writer.finish()
        let txn = transaction
        try withUnsafeBytes(of: position.sequence.bigEndian) { key in
            try entry.withUnsafeBytes { value in try txn.transaction.put(key, value, in: txn.databases.journal, append: true) }
        }
    }

    /// Counts the records inserted of the kind before, when `kind` is another one.
    private mutating func count(kind: UnsafeRawBufferPointer) throws {
        guard !kind.elementsEqual(self.kind) else { return }
        try finish()
        self.kind.removeAll(keepingCapacity: true)
        self.kind.append(contentsOf: kind)
        tracksModificationTimes = transaction.store.kind(named: String(decoding: kind, as: UTF8.self))?.tracksModificationTimes ?? false
    }

    /// Adds the records inserted to their kind's count; call it before the transaction ends.
    mutating func finish() throws {
        if inserted > 0 { try transaction.adjustCount(of: String(decoding: kind, as: UTF8.self), by: inserted) }
        inserted = 0
    }
}
