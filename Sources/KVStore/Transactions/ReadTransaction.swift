import LMDB

/// A consistent snapshot of the store, valid only during the ``Store/read(_:)-2zm6d`` or
/// ``Store/write(_:)-2jclw`` closure that received it.
///
/// ```swift
/// let (name, count) = try store.read { txn in
///     (try txn.value(forKey: "name", of: ada), try txn.count(ofKind: "person"))
/// }
/// ```
public class ReadTransaction {
    /// The store this transaction belongs to.
    public let store: Store
    let transaction: LMDB.Transaction
    var databases: StoreDatabases { store.databases }
    /// The kind catalog as this transaction sees it, once asked for (``kindCatalog()``).
    var loadedCatalog: KindCatalog?
    /// Whether this transaction's snapshot is known to have no kind catalog (``effectiveKind(named:)``).
    var hasNoCatalog = false
    /// The rules ``effectiveKind(named:)`` gave last, with what they were composed from.
    var lastRules: LastKindRules?
    /// The key sets of records this transaction decoded, reused by the next ones (``decodeRecord(_:ref:)``).
    var recordShapes = RecordShapes()

    init(store: Store, transaction: LMDB.Transaction) {
        self.store = store
        self.transaction = transaction
    }

    // MARK: Records

    /// Whether the record exists.
    public func contains(_ ref: RecordRef) throws -> Bool {
        try withRecordBytes(ref) { $0 != nil }
    }

    /// The record's values, or nil when there is no such record.
    public func record(_ ref: RecordRef) throws -> [String: Value]? {
        try withRecordBytes(ref) { bytes in
            guard let bytes else { return nil }
            return try decodeRecord(bytes, ref: ref)
        }
    }

    /// The record's values.
    /// - Throws: ``KeyValueCodingError/Code/recordNotFound``.
    func existingRecord(_ ref: RecordRef) throws -> [String: Value] {
        guard let values = try record(ref) else { throw KeyValueCodingError.recordNotFound(ref) }
        return values
    }

    /// The stored value of one key, decoding only that key; nil when the record does not hold it.
    /// - Throws: ``KeyValueCodingError/Code/recordNotFound`` when there is no such record.
    func storedValue(forKey key: String, of ref: RecordRef) throws -> Value? {
        try withRecordBytes(ref) { bytes in
            guard let bytes else { throw KeyValueCodingError.recordNotFound(ref) }
            return try storedValue(forKey: key, in: bytes, of: ref)
        }
    }

    /// The value stored under `key` in `record`, the stored encoding of `ref`.
    func storedValue(forKey key: String, in record: UnsafeRawBufferPointer, of ref: RecordRef) throws -> Value? {
        do {
            return try RecordCodec.value(forKey: key, in: record)
        } catch {
            throw corruptRecord(ref, error)
        }
    }

    /// Calls `body` with the stored encoding of a record (nil when there is none), read in place
    /// (no copy); the key is built on the stack (no allocation). The buffer is valid only during
    /// `body`. (The lookup leaves the allocation's closure as a `Result`, and `body` runs after:
    /// a throwing closure there cost ~170 instructions of retains and releases per read.)
    @inline(__always)
    func withRecordBytes<T>(_ ref: RecordRef, _ body: (UnsafeRawBufferPointer?) throws -> T) throws -> T {
        let kindLength = ref.kind.utf8.count
        let length = kindLength + 1 + ref.id.utf8.count
        let bytes = withUnsafeTemporaryAllocation(byteCount: length, alignment: 1) { key in
            key.copyBytes(from: ref.kind.utf8)
            key[kindLength] = 0
            UnsafeMutableRawBufferPointer(rebasing: key[(kindLength + 1)...]).copyBytes(from: ref.id.utf8)
            return Result { () throws(LMDBError) in try transaction.lookUp(UnsafeRawBufferPointer(key), in: databases.records) }
        }
        return try body(try bytes.get())
    }

    func decodeRecord(_ bytes: UnsafeRawBufferPointer, ref: RecordRef) throws(StoreError) -> [String: Value] {
        do {
            return try recordShapes.decode(bytes)
        } catch {
            throw corruptRecord(ref, error)
        }
    }

    /// The error for a record whose encoding does not decode.
    func corruptRecord(_ ref: RecordRef, _ error: ValueDecodingError) -> StoreError {
        StoreError(.corrupt, "record \(ref) is corrupt: \(error)", path: store.path)
    }

    /// The error for a key of the records database that names no record.
    func malformedRecordKey(_ key: UnsafeRawBufferPointer) -> StoreError {
        StoreError(.corrupt, "a record key is malformed: \(Array(key.prefix(80)))", path: store.path)
    }

    /// Calls `body` with every record of `kind` in id order (bytewise UTF-8), or of every kind
    /// (ordered by kind, then id) when `kind` is nil. Records are decoded one at a time, so memory
    /// stays constant however many there are (in a read transaction, the scan's cursor gives the
    /// map's pages it passed back as it goes). Return false from `body` to stop.
    public func forEachRecord(ofKind kind: String? = nil, _ body: (Record) throws -> Bool) throws {
        if let kind { try RecordRef.validate(kind: kind) }
        let prefix = kind.map(StoreLayout.kindPrefix) ?? []
        try transaction.scan(databases.records, prefix: prefix) { key, value in
            guard let ref = kind.map({ StoreLayout.ref(fromKey: key, kind: $0, idFrom: prefix.count) }) ?? StoreLayout.ref(fromKey: key) else {
                throw malformedRecordKey(key)
            }
            return try body(Record(ref: ref, values: decodeRecord(value, ref: ref)))
        }
    }

    /// Every record of `kind`, in id order.
    public func records(ofKind kind: String) throws -> [Record] {
        var result: [Record] = []
        try forEachRecord(ofKind: kind) { result.append($0); return true }
        return result
    }

    /// The references of every record of `kind`, in id order, without decoding the records.
    public func refs(ofKind kind: String) throws -> [RecordRef] {
        try RecordRef.validate(kind: kind)
        var refs: [RecordRef] = []
        try transaction.scan(databases.records, prefix: StoreLayout.kindPrefix(kind)) { key, _ in
            if let ref = StoreLayout.ref(fromKey: key) { refs.append(ref) }
            return true
        }
        return refs
    }

    /// The number of records of `kind` (kept as a counter: no scan).
    public func count(ofKind kind: String) throws -> Int {
        try RecordRef.validate(kind: kind)
        return try recordCount(transaction.uint64(forKey: StoreLayout.MetaKey.count(kind), in: databases.meta) ?? 0, of: kind)
    }

    /// A kind's record counter as a count. Only a damaged counter exceeds `Int.max` (a store
    /// cannot hold that many records): one clear error rather than a trap.
    private func recordCount(_ stored: UInt64, of kind: String) throws -> Int {
        guard let count = Int(exactly: stored) else {
            throw StoreError(.corrupt, "the record counter of kind '\(kind)' in meta is \(stored), more than a store can hold: the counter is damaged", path: store.path)
        }
        return count
    }

    /// The kinds that have records, with their counts, in name order.
    public func kinds() throws -> [(kind: String, count: Int)] {
        let prefix = StoreLayout.MetaKey.countPrefix
        var result: [(kind: String, count: Int)] = []
        try transaction.scan(databases.meta, prefix: prefix) { key, value in
            let kind = String(decoding: key.dropFirst(prefix.count), as: UTF8.self)
            let count = try recordCount(StoreLayout.uint64(from: value) ?? 0, of: kind)
            if count > 0 { result.append((kind, count)) }
            return true
        }
        return result
    }
}
