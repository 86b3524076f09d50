/// The number of records under each value of each proper leading prefix of a compound index: for
/// an index on `feed, read, published`, the records of each feed and of each (feed, read) pair —
/// what `count` reads in one lookup for a predicate that is exactly an equality on such a prefix.
///
/// A record counts once under each distinct prefix its tuples start with (a record whose array
/// gives several tuples with one prefix counts once there; one in the unknown bucket counts
/// nowhere). Prefixes are the encoded components (``IndexKeyEncoding``) of the first 1 to k − 1
/// key paths, uncut; one longer than ``IndexKeyEncoding/maximumTupleLength`` is not counted, and
/// a query for it counts the entries.
///
/// Stored in the `indexes` database, in an area after every index's entries: key `FF FF FF FF`
/// (``areaNumber``, a number never given to an index), the index's 4-byte number, then the prefix;
/// value the count, `UInt64 LE`. No index range reaches it (a range stays within its index's
/// number). A count that drops to 0 removes its row. Only an index whose directory entry says so
/// has them (``BuiltIndex/countsPrefixes``, every index built since format 4,
/// ``StoreLayout/indexPrefixCountsFormatVersion``); they are kept in the same transaction as the
/// entries (``WriteTransaction/notePrefixCounts(of:removing:adding:)``), dropped with them, and
/// checked by `verify`.
enum IndexPrefixCounts {
    /// The number the area's keys start with, which no index is given.
    static let areaNumber: UInt32 = 0xFFFF_FFFF
    /// The start of every key of the area.
    static let areaPrefix: [UInt8] = IndexDirectory.prefix(areaNumber)

    /// The start of the keys of the counts of the index numbered `number`.
    static func prefix(of number: UInt32) -> [UInt8] {
        areaPrefix + IndexDirectory.prefix(number)
    }

    /// The key of the count of `prefix` in the index numbered `number`.
    static func key(number: UInt32, prefix: [UInt8]) -> [UInt8] {
        Self.prefix(of: number) + prefix
    }

    /// The stored value of `count`.
    static func encoded(_ count: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt64(max(count, 0)).littleEndian, Array.init)
    }

    /// The count a stored value holds; nil when it is malformed.
    static func decode(_ value: some Collection<UInt8>) -> Int? {
        guard value.count == 8 else { return nil }
        let count = value.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return count <= UInt64(Int.max) ? Int(count) : nil
    }

    /// Calls `body` with each prefix `entries` counts under, each once.
    static func forEachPrefix(of entries: IndexEntries, _ body: ([UInt8]) -> Void) {
        var prefixes: [[UInt8]] = [[]]
        for components in entries.leading {
            prefixes = prefixes.flatMap { prefix in components.map { prefix + $0 } }
            for prefix in prefixes where prefix.count <= IndexKeyEncoding.maximumTupleLength { body(prefix) }
        }
    }
}
