/// The counts of an index's *irregular* entries: those that keep a planner from taking the
/// index's ranges as exact, or its key order as a sort's, without reading them.
///
/// An entry here is one record's under one key (a record with several tuples has several), and is
/// counted:
/// - as ``inexact`` when its tuple was cut (``IndexEntryFlags/inexact``);
/// - as ``element`` when its tuple comes from an array's element (``IndexEntryFlags/element``);
/// - per key path, as ``unordered`` when its component there orders otherwise than a sort orders
///   its value, and as ``reformed`` when that component is a string the index keeps in another
///   form (``IndexKeyEncoding/SortDeparture``).
///
/// Stored in the `indexes` database under the index's 4-byte number alone (``key(_:)``), which no
/// entry's key is (a tuple is never empty): a format byte (1), then `UInt64 LE` counts — inexact,
/// element, then per key path its unordered and reformed entries. The per-path counts stop at
/// ``maximumPositions``: the last one counts the key paths from it on. Absent: every count is 0 —
/// a regular entry adds nothing to store, and the record is removed when the counts drop back to
/// 0. Only an index whose directory entry says it counts them has one
/// (``BuiltIndex/countsIrregularEntries``); it is kept in the same transaction as the entries
/// (``WriteTransaction/noteStatistics(of:removing:adding:)``), dropped with them, and checked by
/// `verify`.
struct IndexStatistics: Hashable, Sendable, CustomStringConvertible {
    /// The most key paths counted apart.
    static let maximumPositions = 64
    /// The format byte.
    static let format: UInt8 = 1

    var inexact = 0
    var element = 0
    /// Per key path position (see ``slot(_:)``).
    var unordered: [Int]
    var reformed: [Int]

    /// Zero counts for an index on `keyPaths` key paths.
    init(keyPaths: Int) {
        let slots = min(max(keyPaths, 1), Self.maximumPositions)
        unordered = Array(repeating: 0, count: slots)
        reformed = unordered
    }

    /// The irregular entries of one record, `entries` of `index`; nil when it has none (the
    /// common case, found without allocating).
    init?(irregularEntriesOf entries: IndexEntries, in index: KindIndex) {
        let limit = IndexKeyEncoding.maximumTupleLength
        guard entries.tuples.contains(where: { $0.origin.departsFromSortOrder || $0.bytes.count > limit }) else { return nil }
        self.init(keyPaths: index.keyPaths.count)
        // As keys hold them: tuples cut alike are one entry (sorted tuples keep them together).
        var group: (cut: ArraySlice<UInt8>, isCut: Bool, origin: IndexEntries.Origin)?
        for tuple in entries.tuples {
            let cut = tuple.bytes.prefix(limit), isCut = tuple.bytes.count > limit
            if var current = group, current.cut == cut {
                current.isCut = current.isCut || isCut
                current.origin.isElement = current.origin.isElement || tuple.origin.isElement
                current.origin.unordered |= tuple.origin.unordered
                current.origin.reformed |= tuple.origin.reformed
                group = current
            } else {
                if let current = group { count(current.isCut, current.origin) }
                group = (cut, isCut, tuple.origin)
            }
        }
        if let current = group { count(current.isCut, current.origin) }
    }

    private mutating func count(_ isCut: Bool, _ origin: IndexEntries.Origin) {
        if isCut { inexact += 1 }
        if origin.isElement { element += 1 }
        for slot in unordered.indices {
            if origin.unordered & 1 << slot != 0 { unordered[slot] += 1 }
            if origin.reformed & 1 << slot != 0 { reformed[slot] += 1 }
        }
    }

    /// The slot of the key path at `position`.
    func slot(_ position: Int) -> Int { min(position, unordered.count - 1) }

    /// Whether every count is 0.
    var isZero: Bool { inexact == 0 && element == 0 && unordered.allSatisfy { $0 == 0 } && reformed.allSatisfy { $0 == 0 } }

    /// Adds `other`'s counts (of the same index), subtracted when `sign` is -1.
    mutating func add(_ other: IndexStatistics, sign: Int = 1) {
        inexact += sign * other.inexact
        element += sign * other.element
        for slot in unordered.indices where slot < other.unordered.count {
            unordered[slot] += sign * other.unordered[slot]
            reformed[slot] += sign * other.reformed[slot]
        }
    }

    /// `inexact 0, element 2, unordered [0, 1], reformed [0, 0]`: what `verify` names.
    var description: String { "inexact \(inexact), element \(element), unordered \(unordered), reformed \(reformed)" }

    // MARK: Stored form

    /// The key of the statistics of the index whose keys start with `prefix`.
    static func key(_ prefix: [UInt8]) -> [UInt8] { prefix }

    /// The stored value (counts below 0, which only damage makes, are stored as 0).
    var encoded: [UInt8] {
        var value = [Self.format]
        for count in [inexact, element] + zip(unordered, reformed).flatMap({ [$0, $1] }) {
            withUnsafeBytes(of: UInt64(max(count, 0)).littleEndian) { value.append(contentsOf: $0) }
        }
        return value
    }

    /// The statistics a stored value holds for an index on `keyPaths` key paths; nil when the value
    /// is malformed.
    init?(decoding value: some Collection<UInt8>, keyPaths: Int) {
        self.init(keyPaths: keyPaths)
        let bytes = Array(value)
        guard bytes.count == 1 + 16 * (1 + unordered.count), bytes[0] == Self.format else { return nil }
        var counts: [Int] = []
        for offset in stride(from: 1, to: bytes.count, by: 8) {
            let count = bytes[offset ..< offset + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard count <= UInt64(Int.max) else { return nil }
            counts.append(Int(count))
        }
        (inexact, element) = (counts[0], counts[1])
        for slot in unordered.indices {
            unordered[slot] = counts[2 + 2 * slot]
            reformed[slot] = counts[3 + 2 * slot]
        }
    }
}
