/// A record read in place: its stored encoding where the store's map holds it, each value decoded
/// when asked for, valid only inside the closure that receives it.
///
/// ```swift
/// let total = try store.read { txn in
///     var total: Int64 = 0
///     try txn.forEachRecordView(ofKind: "item") { item in
///         total += try item.value(forKey: "words")?.intValue ?? 0   // one key decoded, no dictionary
///         return true
///     }
///     return total
/// }
/// ```
///
/// The view is noncopyable and handed to its closure borrowed, so it cannot be kept past the
/// call: the bytes it reads belong to the transaction's snapshot. Every read checks what it
/// reads as the record decoders do (offsets in range, keys in order, values well formed) and
/// throws ``StoreError`` (`corrupt`, naming the record) on a damaged record, never traps.
/// ``value(forKey:)`` reads the stored value only: kinds' hooks and rules are not applied (see
/// ``ReadTransaction/value(forKey:of:)`` for them).
public struct RecordView: ~Copyable {
    /// The record's reference.
    public let ref: RecordRef
    private let bytes: UnsafeRawBufferPointer
    private let transaction: ReadTransaction

    init(ref: RecordRef, bytes: UnsafeRawBufferPointer, transaction: ReadTransaction) {
        self.ref = ref
        self.bytes = bytes
        self.transaction = transaction
    }

    /// The value stored under `key` (looked up in NFC), decoding only that value; nil when the
    /// record does not hold it.
    /// - Throws: ``StoreError`` (`corrupt`) when what it reads of the record is damaged.
    public func value(forKey key: String) throws -> Value? {
        try transaction.storedValue(forKey: key, in: bytes, of: ref)
    }

    /// The record's keys, in the order of their UTF-8 bytes, without decoding any value.
    /// - Throws: ``StoreError`` (`corrupt`) when a key is damaged.
    public func keys() throws -> [String] {
        do { return try RecordCodec.keys(in: bytes) } catch {
            throw transaction.corruptRecord(ref, error)
        }
    }

    /// The whole record decoded and checked, as ``ReadTransaction/record(_:)`` gives it.
    /// - Throws: ``StoreError`` (`corrupt`) when the record is damaged anywhere.
    public func values() throws -> [String: Value] {
        try transaction.decodeRecord(bytes, ref: ref)
    }
}

extension ReadTransaction {
    /// Calls `body` with a view of the record read in place (``RecordView``); nil, without
    /// calling it, when there is no such record.
    public func withRecordView<T>(_ ref: RecordRef, _ body: (borrowing RecordView) throws -> T) throws -> T? {
        try withRecordBytes(ref) { bytes in
            guard let bytes else { return nil }
            return try body(RecordView(ref: ref, bytes: bytes, transaction: self))
        }
    }

    /// Calls `body` with a view of every record of `kind` in id order (``RecordView``), nothing
    /// decoded until asked for. Return false from `body` to stop.
    public func forEachRecordView(ofKind kind: String, _ body: (borrowing RecordView) throws -> Bool) throws {
        try RecordRef.validate(kind: kind)
        let prefix = StoreLayout.kindPrefix(kind)
        try transaction.scan(databases.records, prefix: prefix) { key, value in
            guard let ref = StoreLayout.ref(fromKey: key, kind: kind, idFrom: prefix.count) else {
                throw malformedRecordKey(key)
            }
            return try body(RecordView(ref: ref, bytes: value, transaction: self))
        }
    }
}
