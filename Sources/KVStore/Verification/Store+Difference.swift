import Foundation
import LMDB

/// One difference between the records of two stores.
public enum RecordDifference: Sendable, Hashable {
    /// The record exists only in the first store.
    case onlyInFirst(RecordRef)
    /// The record exists only in the second store.
    case onlyInSecond(RecordRef)
    /// The record exists in both, and `key` holds different values (nil: the key is absent).
    case valueDiffers(RecordRef, key: String, first: Value?, second: Value?)
}

extension Store {
    /// Calls `body` with each difference between this store's records and `other`'s, in record
    /// order (kind, then id; then key), until it returns false.
    ///
    /// ```swift
    /// var differences: [RecordDifference] = []
    /// try a.forEachDifference(from: b) { differences.append($0); return true }
    /// ```
    /// A merge walk over both stores' records in one read transaction each: records whose stored
    /// bytes are equal are equal and are not decoded; only records whose bytes differ are decoded
    /// and compared key by key. Memory stays constant however many records there are.
    /// - Throws: ``StoreError/Code/corrupt`` for a record that does not decode or a malformed key.
    public func forEachDifference(from other: Store, _ body: (RecordDifference) throws -> Bool) throws {
        try read { a in try forEachDifference(in: a, from: other, body) }
    }

    /// ``forEachDifference(from:_:)`` with this store's records as `a`, a snapshot of it, has them.
    func forEachDifference(in a: ReadTransaction, from other: Store, _ body: (RecordDifference) throws -> Bool) throws {
        try other.read { b in
            try a.transaction.withCursor(on: databases.records) { first in
                try b.transaction.withCursor(on: other.databases.records) { second in
                    try Self.mergeWalk(first, second, paths: (path, other.path), body)
                }
            }
        }
    }

    private static func mergeWalk(
        _ first: LMDB.Cursor, _ second: LMDB.Cursor, paths: (String, String), _ body: (RecordDifference) throws -> Bool
    ) throws {
        func ref(_ key: UnsafeRawBufferPointer, in path: String) throws -> RecordRef {
            guard let ref = StoreLayout.ref(fromKey: key) else {
                throw StoreError(.corrupt, "a record key is malformed: \(Array(key.prefix(80)))", path: path)
            }
            return ref
        }
        func decode(_ bytes: UnsafeRawBufferPointer, _ ref: RecordRef, in path: String) throws -> [String: Value] {
            do { return try RecordCodec.decode(bytes) } catch {
                throw StoreError(.corrupt, "record \(ref) is corrupt: \(error)", path: path)
            }
        }
        // LMDB's errors name the store whose cursor met them: the reads are nested, and the inner
        // one would otherwise claim every error as its own.
        func move(_ cursor: LMDB.Cursor, in path: String, fromStart: Bool = false) throws -> LMDB.Cursor.Entry? {
            do { return try fromStart ? cursor.first() : cursor.next() } catch { throw StoreError.storage(error, path: path) }
        }
        var a = try move(first, in: paths.0, fromStart: true)
        var b = try move(second, in: paths.1, fromStart: true)
        while a != nil || b != nil {
            let order = a == nil ? 1 : b == nil ? -1 : RecordCodec.compare(a!.key, b!.key)
            if order < 0 {
                guard try body(.onlyInFirst(ref(a!.key, in: paths.0))) else { return }
                a = try move(first, in: paths.0)
            } else if order > 0 {
                guard try body(.onlyInSecond(ref(b!.key, in: paths.1))) else { return }
                b = try move(second, in: paths.1)
            } else {
                if RecordCodec.compare(a!.value, b!.value) != 0 {
                    let record = try ref(a!.key, in: paths.0)
                    let values = (try decode(a!.value, record, in: paths.0), try decode(b!.value, record, in: paths.1))
                    let keys = Set(values.0.keys).union(values.1.keys).sorted { UTF8Text.precedes($0, $1) }
                    for key in keys where values.0[key] != values.1[key] {
                        guard try body(.valueDiffers(record, key: key, first: values.0[key], second: values.1[key])) else { return }
                    }
                }
                a = try move(first, in: paths.0)
                b = try move(second, in: paths.1)
            }
        }
    }
}
