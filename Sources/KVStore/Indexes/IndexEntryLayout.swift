/// How an index entry is stored in the `indexes` database (see ``StoreLayout``).
///
/// Key: the index's 4-byte number (``BuiltIndex/prefix``), the tuple (``IndexKeyEncoding``) cut to
/// ``IndexKeyEncoding/maximumTupleLength`` bytes, then the record's id — so an index scans in tuple order,
/// ties in id order. Value: a flags byte (``IndexEntryFlags``), the tuple's length in the key
/// (so the id starts after it), and, with ``IndexEntryFlags/idList``, the records' ids.
///
/// The key must fit LMDB's 511 bytes. A tuple of 240 bytes leaves 267 for the id; a longer id
/// is cut to fit, and the value lists the full ids of the records whose tuple and cut id make that
/// key: each as an element flag byte, a `UInt16 LE` length and the id, in id order. A key holds
/// one record in the short form — no list — exactly when its tail is that record's whole id.
enum IndexEntryLayout {
    /// LMDB's key limit (`mdb_env_get_maxkeysize`).
    static let maximumKeyLength = 511

    /// One record under a key: its id, and whether its tuple comes from an array's element.
    struct Item: Hashable, Comparable {
        var id: String
        var isElement: Bool

        static func < (lhs: Item, rhs: Item) -> Bool { UTF8Text.precedes(lhs.id, rhs.id) }
    }

    /// What a stored entry says.
    struct Stored: Equatable {
        /// The tuple's length in the key.
        var tupleLength: Int
        var flags: IndexEntryFlags
        /// The records under the key, in id order.
        var items: [Item]
    }

    /// `tuple` as keys hold it, and whether it was cut.
    static func cut(_ tuple: [UInt8]) -> (tuple: [UInt8], isCut: Bool) {
        tuple.count > IndexKeyEncoding.maximumTupleLength ? (Array(tuple.prefix(IndexKeyEncoding.maximumTupleLength)), true) : (tuple, false)
    }

    /// The key of the entry of record `id` with `tuple` (already cut) in the index whose keys
    /// start with `prefix`.
    static func key(prefix: [UInt8], tuple: [UInt8], id: String) -> [UInt8] {
        let room = maximumKeyLength - prefix.count - tuple.count
        var key: [UInt8] = []
        key.reserveCapacity(prefix.count + tuple.count + min(room, id.utf8.count))
        key.append(contentsOf: prefix)
        key.append(contentsOf: tuple)
        key.append(contentsOf: id.utf8.prefix(room))
        return key
    }

    /// The value of a key holding `items` (at least one).
    static func value(key: [UInt8], prefixLength: Int, tupleLength: Int, isCut: Bool, items: [Item]) -> [UInt8] {
        var flags: IndexEntryFlags = isCut ? .inexact : []
        if items.contains(where: \.isElement) { flags.insert(.element) }
        let short = items.count == 1 && key[(prefixLength + tupleLength)...].elementsEqual(items[0].id.utf8)
        if !short { flags.insert(.idList) }
        var value: [UInt8] = [flags.rawValue, UInt8(tupleLength)]
        guard !short else { return value }
        for item in items.sorted() {
            let id = Array(item.id.utf8)
            value.append(item.isElement ? 1 : 0)
            value.append(UInt8(id.count & 0xFF))
            value.append(UInt8(id.count >> 8))
            value.append(contentsOf: id)
        }
        return value
    }

    /// What the entry `key` → `value` says; nil when it is malformed (see ``View``).
    static func decode(key: some Collection<UInt8>, value: some Collection<UInt8>, prefixLength: Int) -> Stored? {
        let (key, value) = (Array(key), Array(value))
        return key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in View(key: key, value: value, prefixLength: prefixLength)?.stored }
        }
    }
}

/// The flags of an index entry (the first byte of its value).
struct IndexEntryFlags: OptionSet, Hashable {
    let rawValue: UInt8

    /// The tuple was cut to ``IndexKeyEncoding/maximumTupleLength`` bytes: the entry's records must be
    /// re-checked against the condition.
    static let inexact = IndexEntryFlags(rawValue: 1)
    /// A record's tuple comes from an array's element: a record may have several entries, and
    /// the index cannot give its records in the order of the key path's value.
    static let element = IndexEntryFlags(rawValue: 2)
    /// The value lists the records' ids (a record's id did not fit the key).
    static let idList = IndexEntryFlags(rawValue: 4)

    static let all: IndexEntryFlags = [.inexact, .element, .idList]
}
