import Foundation
import LMDB

/// Applies ``EncodedInsertion``s in one write transaction as their bytes: the record stored as it
/// is, and the journal entry put together from the source entry's change, new and ref values with
/// the replica's sequence, commit id, origin and time — byte for byte what
/// ``WriteTransaction/apply(_:)`` stores and journals for the decoded entry — written in one pass
/// into a buffer of its size. Its buffers are used again for every entry, and records inserted are
/// counted per run of one kind: nothing is allocated per entry.
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
        let kind = UnsafeRawBufferPointer(rebasing: bytes[insertion.kind]), id = UnsafeRawBufferPointer(rebasing: bytes[insertion.id])
        let fields = UnsafeRawBufferPointer(rebasing: bytes[insertion.record.lowerBound + 1 ..< insertion.record.upperBound])
        Self.write(into: &key, count: kind.count + 1 + id.count) { out in
            out.append(kind)
            out.append(0)
            out.append(id)
        }
        Self.write(into: &record, count: 1 + fields.count) { out in
            out.append(ValueCodec.version)
            out.append(fields)
        }
        guard try txn.transaction.insert(key, record, in: txn.databases.records) else {
            let ref = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[insertion.kind.lowerBound ..< insertion.id.upperBound]), as: UTF8.self)
            return "\(ref) to insert already exists"
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
        let commit = RawOutput.zigzag(position.commit), sequence = RawOutput.zigzag(position.sequence)
        let time = transaction.journalTimestamp.timeIntervalSinceReferenceDate.bitPattern
        // Each entry: the key's length and bytes, then the tagged value.
        var originEntries = (sequence: 0, store: 0)
        var sizes = 7 + EncodedInsertion.insertedChange.count + 8 + RawOutput.length(commit) + 4 + record.count
            + 4 + reference.count + 10 + RawOutput.length(sequence) + 10 + 9
        if let origin {
            originEntries = (10 + RawOutput.length(RawOutput.zigzag(origin.sequence)), 7 + RawOutput.length(UInt64(origin.store.count)) + origin.store.count)
            sizes += 7 + 2 + 3 * 4 + originEntries.sequence + originEntries.store
        }
        let count = origin == nil ? 6 : 7
        let tableStart = 2, entriesStart = 2 + (count + 1) * 4
        Self.write(into: &entry, count: entriesStart + sizes) { out in
            out.append(ValueCodec.version)
            out.append(UInt8(count))
            out.offset = entriesStart
            var index = 0
            func key(_ name: StaticString) {
                out.store(UInt32(out.offset - entriesStart), at: tableStart + index * 4)
                index += 1
                out.append(UInt8(name.utf8CodeUnitCount))
                out.append(UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            }
            key("change")
            EncodedInsertion.insertedChange.withUnsafeBytes { out.append($0) }
            key("commit")
            out.append(ValueCodec.Tag.int)
            out.appendVarint(commit)
            key("new")
            out.append(record)
            if let origin {
                key("origin")
                out.append(ValueCodec.Tag.dictionary)
                out.append(2)
                out.store(0, at: out.offset)
                out.store(UInt32(originEntries.sequence), at: out.offset + 4)
                out.store(UInt32(originEntries.sequence + originEntries.store), at: out.offset + 8)
                out.offset += 12
                out.append(8)
                out.append(UnsafeRawBufferPointer(start: ("sequence" as StaticString).utf8Start, count: 8))
                out.append(ValueCodec.Tag.int)
                out.appendVarint(RawOutput.zigzag(origin.sequence))
                out.append(5)
                out.append(UnsafeRawBufferPointer(start: ("store" as StaticString).utf8Start, count: 5))
                out.append(ValueCodec.Tag.string)
                out.appendVarint(UInt64(origin.store.count))
                out.append(origin.store)
            }
            key("ref")
            out.append(reference)
            key("sequence")
            out.append(ValueCodec.Tag.int)
            out.appendVarint(sequence)
            key("timestamp")
            out.append(ValueCodec.Tag.date)
            out.appendUInt64(time)
            out.store(UInt32(out.offset - entriesStart), at: tableStart + count * 4)
        }
        let txn = transaction
        try withUnsafeBytes(of: position.sequence.bigEndian) { key in
            try entry.withUnsafeBytes { value in try txn.transaction.put(key, value, in: txn.databases.journal, append: true) }
        }
    }

    /// Makes `buffer` `count` bytes long (keeping its storage) and fills it with `body`, which
    /// must write every byte.
    private static func write(into buffer: inout [UInt8], count: Int, _ body: (inout RawOutput) -> Void) {
        if buffer.count < count {
            buffer.append(contentsOf: repeatElement(0, count: count - buffer.count))
        } else if buffer.count > count {
            buffer.removeLast(buffer.count - count)
        }
        buffer.withUnsafeMutableBytes { bytes in
            var out = RawOutput(bytes: bytes)
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
        tracksModificationTimes = transaction.store.kind(named: String(decoding: kind, as: UTF8.self))?.tracksModificationTimes ?? false
    }

    /// Adds the records inserted to their kind's count; call it before the transaction ends.
    mutating func finish() throws {
        if inserted > 0 { try transaction.adjustCount(of: String(decoding: kind, as: UTF8.self), by: inserted) }
        inserted = 0
    }
}

/// Writes bytes into a buffer sized for them beforehand (the sizes were checked by the caller).
struct RawOutput {
    let bytes: UnsafeMutableRawBufferPointer
    var offset = 0

    init(bytes: UnsafeMutableRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func append(_ byte: UInt8) {
        precondition(offset < bytes.count)
        bytes[offset] = byte
        offset += 1
    }

    mutating func append(_ source: UnsafeRawBufferPointer) {
        guard let base = source.baseAddress, source.count > 0 else { return }
        precondition(offset + source.count <= bytes.count)
        bytes.baseAddress!.advanced(by: offset).copyMemory(from: base, byteCount: source.count)
        offset += source.count
    }

    /// A little-endian `UInt64`.
    mutating func appendUInt64(_ value: UInt64) {
        precondition(offset + 8 <= bytes.count)
        bytes.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self)
        offset += 8
    }

    /// An unsigned LEB128 varint, as ``ValueCodec/appendVarint(_:to:)`` writes it.
    mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }

    /// A little-endian `UInt32` at `position`.
    func store(_ value: UInt32, at position: Int) {
        precondition(position >= 0 && position + 4 <= bytes.count)
        bytes.storeBytes(of: value.littleEndian, toByteOffset: position, as: UInt32.self)
    }

    /// The bytes of `value`'s varint.
    static func length(_ value: UInt64) -> Int {
        value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }

    /// An int's zigzag form, as ``ValueCodec`` encodes `.int`.
    static func zigzag(_ value: UInt64) -> UInt64 {
        let int = Int64(bitPattern: value)
        return UInt64(bitPattern: (int << 1) ^ (int >> 63))
    }
}
