/// An index as it is built in a store: its declaration and the number its entries' keys start with.
struct BuiltIndex: Hashable, Sendable {
    /// The kind whose records it indexes.
    let kind: String
    /// The declaration.
    let index: KindIndex
    /// The number given to it when it was built (from 1; never given again in the store).
    let number: UInt32
    /// Whether the store keeps the counts of its irregular entries (``IndexStatistics``): every
    /// index built since they exist. One built before is surveyed by reading its entries.
    var countsIrregularEntries = true
    /// Whether the store keeps the number of records under each of its leading prefixes
    /// (``IndexPrefixCounts``): every index built since they exist. `count` counts the entries
    /// of one built before.
    var countsPrefixes = true
    /// The first four bytes of each of its entries' keys: the number, big-endian (made once, not
    /// for each entry written).
    let prefix: [UInt8]

    init(kind: String, index: KindIndex, number: UInt32, countsIrregularEntries: Bool = true, countsPrefixes: Bool = true) {
        self.kind = kind
        self.index = index
        self.number = number
        self.countsIrregularEntries = countsIrregularEntries
        self.countsPrefixes = countsPrefixes
        prefix = IndexDirectory.prefix(number)
    }

    /// `kind.name`, as the `kvstore` tool and `explain` name it.
    var qualifiedName: String { "\(kind).\(index.name)" }
}

/// The directory of built indexes, at the start of the `indexes` database (number 0): which
/// indexes are built, and their numbers. Keeping it in the database it describes makes the
/// database whole on its own: entries and the names they belong to are dropped together.
///
/// - key `00 00 00 00`: the last number given, `UInt32` big-endian;
/// - key `00 00 00 00`, the kind, `00`, `f` (folded) or `p` (plain), `00`, the index's name: the
///   index's number (`UInt32` big-endian), then a flags byte — `1` when it is unique, `2` when
///   the store counts its irregular entries (``IndexStatistics``; every index built since format
///   3, ``StoreLayout/indexStatisticsFormatVersion``), `4` when it counts the records under its
///   leading prefixes (``IndexPrefixCounts``; every index built since format 4,
///   ``StoreLayout/indexPrefixCountsFormatVersion``) —, then its key paths, each as a
///   `UInt16 LE` length and UTF-8 text.
///
/// An index is known by its kind, its name and whether it is folded: `title` and `title` folded
/// are two indexes; the unique flag is a property of one index.
enum IndexDirectory {
    /// The key of the last number given, and the start of every directory key.
    static let counterKey: [UInt8] = [0, 0, 0, 0]

    static func prefix(_ number: UInt32) -> [UInt8] {
        withUnsafeBytes(of: number.bigEndian, Array.init)
    }

    /// The directory key of `index` of `kind`.
    static func key(kind: String, index: KindIndex) -> [UInt8] {
        kindPrefix(kind) + [index.isFolded ? UInt8(ascii: "f") : UInt8(ascii: "p"), 0] + Array(index.name.utf8)
    }

    /// The start of the directory keys of `kind`'s indexes.
    static func kindPrefix(_ kind: String) -> [UInt8] {
        counterKey + Array(kind.utf8) + [0]
    }

    /// The flags byte's bits.
    static let uniqueFlag: UInt8 = 1, countedFlag: UInt8 = 2, prefixesCountedFlag: UInt8 = 4

    /// The directory value of `index`, built under `number` (its irregular entries and its
    /// prefixes counted).
    static func value(number: UInt32, index: KindIndex) -> [UInt8] {
        var value = prefix(number) + [(index.isUnique ? uniqueFlag : 0) | countedFlag | prefixesCountedFlag]
        for path in index.keyPaths {
            let text = Array(path.description.utf8)
            value.append(UInt8(text.count & 0xFF))
            value.append(UInt8(text.count >> 8))
            value.append(contentsOf: text)
        }
        return value
    }

    /// The index the directory entry `key` → `value` of `declared` (an index of `kind`; `key` is
    /// its directory key) describes: when the entry holds `declared`'s key paths and unique flag,
    /// `declared` itself under the entry's number, read without parsing the key paths again (what
    /// ``decode(key:value:)`` makes of such an entry); else what that decode makes of it.
    static func decode(key: [UInt8], value: UnsafeRawBufferPointer, declared: KindIndex, kind: String) -> BuiltIndex? {
        let expected = Self.value(number: 0, index: declared)
        guard value.count == expected.count, value[4] & ~countedFlag == expected[4] & ~countedFlag,
              value[5...].elementsEqual(expected[5...]), (try? RecordRef.validate(kind: kind)) != nil else {
            return decode(key: key, value: value)
        }
        let number = value[..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard number > 0, number < IndexPrefixCounts.areaNumber else { return nil }
        return BuiltIndex(kind: kind, index: declared, number: number, countsIrregularEntries: value[4] & countedFlag != 0)
    }

    /// The index a directory entry describes; nil when the entry is malformed.
    static func decode(key: some Collection<UInt8>, value: some Collection<UInt8>) -> BuiltIndex? {
        let key = Array(key), value = Array(value)
        guard key.count > counterKey.count, key.starts(with: counterKey), value.count >= 5, value[4] <= uniqueFlag | countedFlag | prefixesCountedFlag,
              let kindEnd = key[4...].firstIndex(of: 0), kindEnd + 2 < key.count, key[kindEnd + 2] == 0,
              key[kindEnd + 1] == UInt8(ascii: "f") || key[kindEnd + 1] == UInt8(ascii: "p") else { return nil }
        let kind = String(decoding: key[4 ..< kindEnd], as: UTF8.self)
        var paths: [String] = []
        var offset = 5
        while offset < value.count {
            guard offset + 2 <= value.count else { return nil }
            let length = Int(value[offset]) | Int(value[offset + 1]) << 8
            guard offset + 2 + length <= value.count,
                  let path = String(validating: value[(offset + 2) ..< (offset + 2 + length)], as: UTF8.self) else { return nil }
            paths.append(path)
            offset += 2 + length
        }
        let number = value[..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard number > 0, number < IndexPrefixCounts.areaNumber, (try? RecordRef.validate(kind: kind)) != nil,
              let index = try? KindIndex(paths, unique: value[4] & uniqueFlag != 0, folded: key[kindEnd + 1] == UInt8(ascii: "f")),
              Self.key(kind: kind, index: index).elementsEqual(key) else { return nil }
        return BuiltIndex(kind: kind, index: index, number: number, countsIrregularEntries: value[4] & countedFlag != 0,
                          countsPrefixes: value[4] & prefixesCountedFlag != 0)
    }
}
