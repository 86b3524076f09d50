/// A range of an index's tuples (``IndexKeyEncoding``) that holds every entry a condition can match: what
/// the query planner scans for `==`, `IN`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `BEGINSWITH` and
/// `== nil`, on the first key path of an index or after equalities on the ones before it.
///
/// An entry in the range matches for certain unless it must be re-checked against its record:
/// when its flags say ``IndexEntryFlags/inexact`` (its tuple was cut), and when its key starts with
/// ``recheckPrefix`` (a bound was cut). The unknown bucket (``unknownBucket``) is never inside a
/// condition's range: the planner adds it, re-checked, to every index scan.
///
/// ```swift
/// // feed == "f1" AND published > date, on an index (feed, published)
/// let range = IndexKeyRange(equal: ["f1"], then: .greater(.date(date)), folded: false)
/// ```
struct IndexKeyRange: Hashable, Sendable {
    /// The first tuple in the range (keys at or after it).
    var lower: [UInt8]
    /// The tuple the range ends before; nil: to the end of the index.
    var upper: [UInt8]?
    /// When a bound was longer than ``IndexKeyEncoding/maximumTupleLength`` and cut: the entries whose
    /// tuple starts with it can only be told apart by their record.
    var recheckPrefix: [UInt8]?
    /// Whether entries from an array's element must be re-checked: `== nil` without a quantifier
    /// tests the key path's value itself, and an array holding a null is not nil.
    var recheckElements = false

    /// A condition on the one key path a range is for.
    enum Condition: Hashable, Sendable {
        case equal(Value)
        case less(Value)
        case lessOrEqual(Value)
        case greater(Value)
        case greaterOrEqual(Value)
        /// `lo <= x <= hi`.
        case between(Value, Value)
        /// A string prefix (in a folded index, give it as written: it is folded here).
        case beginsWith(String)
        /// Missing or null: `== nil`.
        case missing
    }

    /// Whether the range holds nothing.
    var isEmpty: Bool { upper.map { !lower.lexicographicallyPrecedes($0) } ?? false }

    /// The empty range: a condition that no value satisfies (`x < true`, `x == NaN`).
    static let empty = IndexKeyRange(lower: [IndexKeyEncoding.Class.missing], upper: [IndexKeyEncoding.Class.missing])

    /// The unknown bucket: the records a key path could not be followed in (it ran into a reference).
    static let unknownBucket = IndexKeyRange(lower: [IndexKeyEncoding.Class.unknown], upper: [IndexKeyEncoding.Class.unknown + 1])

    /// Every entry.
    static let all = IndexKeyRange(lower: [], upper: nil)

    /// The range for `condition` on the key path after the ones `equal` gives values for (each
    /// `==` its value); nil when no range can serve it — an `==` with an array, whose elements the
    /// index holds one by one. A condition no value satisfies gives ``empty``.
    init?(equal prefixValues: [Value] = [], then condition: Condition? = nil, folded: Bool) {
        var prefix: [UInt8] = []
        for value in prefixValues {
            if value.arrayValue != nil { return nil }
            guard IndexKeyEncoding.canEqual(value) else {
                self = .empty
                return
            }
            IndexKeyEncoding.append(value, folded: folded, to: &prefix)
        }
        guard let condition else {
            self = Self.starting(with: prefix)
            return
        }
        switch condition {
        case .missing:
            self = Self.starting(with: prefix + [IndexKeyEncoding.Class.missing])
            recheckElements = true
        case .equal(let value):
            if value.arrayValue != nil { return nil }
            self = IndexKeyEncoding.canEqual(value) ? Self.starting(with: prefix + IndexKeyEncoding.component(value, folded: folded)) : .empty
        case .beginsWith(let string):
            var start = prefix + [IndexKeyEncoding.Class.string]
            IndexKeyEncoding.appendEscapedBody(IndexKeyEncoding.indexedForm(of: string, folded: folded).utf8, to: &start)
            self = Self.starting(with: start)
        case .less(let value), .lessOrEqual(let value), .greater(let value), .greaterOrEqual(let value):
            guard let family = Self.family(of: value) else {
                self = .empty
                return
            }
            let bound = Self.starting(with: prefix + IndexKeyEncoding.component(value, folded: folded))
            let (familyStart, familyEnd) = (prefix + [family.lowerBound], prefix + [family.upperBound])
            switch condition {
            case .less: self = .init(lower: familyStart, upper: bound.recheckPrefix == nil ? bound.lower : bound.upper, recheckPrefix: bound.recheckPrefix)
            case .lessOrEqual: self = .init(lower: familyStart, upper: bound.upper, recheckPrefix: bound.recheckPrefix)
            case .greater: self = .init(lower: bound.recheckPrefix == nil ? bound.upper ?? familyEnd : bound.lower, upper: familyEnd, recheckPrefix: bound.recheckPrefix)
            default: self = .init(lower: bound.lower, upper: familyEnd, recheckPrefix: bound.recheckPrefix)
            }
        case .between(let low, let high):
            guard let family = Self.family(of: low), Self.family(of: high) == family,
                  let from = IndexKeyRange(equal: prefixValues, then: .greaterOrEqual(low), folded: folded),
                  let to = IndexKeyRange(equal: prefixValues, then: .lessOrEqual(high), folded: folded) else {
                self = .empty
                return
            }
            self = .init(lower: from.lower, upper: to.upper, recheckPrefix: from.recheckPrefix ?? to.recheckPrefix)
            if from.recheckPrefix != nil && to.recheckPrefix != nil && from.recheckPrefix != to.recheckPrefix {
                // Two cut bounds: re-check all between them.
                recheckPrefix = []
            }
        }
    }

    init(lower: [UInt8], upper: [UInt8]?, recheckPrefix: [UInt8]? = nil) {
        self.lower = lower
        self.upper = upper
        self.recheckPrefix = recheckPrefix
    }

    /// Whether the range holds `tuple` (an entry's tuple, as stored).
    func contains(_ tuple: some Collection<UInt8>) -> Bool {
        guard !tuple.lexicographicallyPrecedes(lower) else { return false }
        return upper.map { tuple.lexicographicallyPrecedes($0) } ?? true
    }

    /// Whether an entry with `tuple` in this range must be re-checked for the cut bound (its own
    /// flags may ask for it too).
    func needsRecheck(_ tuple: some Collection<UInt8>) -> Bool {
        recheckPrefix.map { tuple.starts(with: $0) } ?? false
    }

    /// Whether an entry in the range, with this tuple and these flags, must be re-checked against
    /// its record: its tuple was cut, a bound was cut, or it is an array's element and the
    /// condition tests whole values (``recheckElements``).
    func needsRecheck(_ tuple: some Collection<UInt8>, flags: IndexEntryFlags) -> Bool {
        flags.contains(.inexact) || (recheckElements && flags.contains(.element)) || needsRecheck(tuple)
    }

    /// The keys of the range in an index whose keys start with `indexPrefix`.
    func keys(withPrefix indexPrefix: [UInt8]) -> (lower: [UInt8], upper: [UInt8]?) {
        (indexPrefix + lower, upper.map { indexPrefix + $0 } ?? Self.successor(of: indexPrefix))
    }

    /// Every tuple that starts with `start`, cut as stored tuples are.
    private static func starting(with start: [UInt8]) -> IndexKeyRange {
        guard start.count > IndexKeyEncoding.maximumTupleLength else {
            return IndexKeyRange(lower: start, upper: successor(of: start))
        }
        let cut = Array(start.prefix(IndexKeyEncoding.maximumTupleLength))
        return IndexKeyRange(lower: cut, upper: successor(of: cut), recheckPrefix: cut)
    }

    /// The first byte string after every string that starts with `bytes`; nil when there is none
    /// (all `FF`).
    static func successor(of bytes: [UInt8]) -> [UInt8]? {
        var bytes = bytes
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }

    /// The class bytes `[start, end)` of the values that order with `value`; nil when it orders
    /// with none (NaN, bools, bytes, references, arrays, dictionaries, null).
    private static func family(of value: Value) -> Range<UInt8>? {
        switch value {
        case .int: IndexKeyEncoding.Class.number ..< IndexKeyEncoding.Class.number + IndexKeyEncoding.Class.notANumber
        case .double(let double) where !double.isNaN: IndexKeyEncoding.Class.number ..< IndexKeyEncoding.Class.number + IndexKeyEncoding.Class.notANumber
        case .date(let date) where !date.timeIntervalSinceReferenceDate.isNaN:
            IndexKeyEncoding.Class.date ..< IndexKeyEncoding.Class.date + IndexKeyEncoding.Class.notANumber
        case .string: IndexKeyEncoding.Class.string ..< IndexKeyEncoding.Class.string + 1
        default: nil
        }
    }
}
