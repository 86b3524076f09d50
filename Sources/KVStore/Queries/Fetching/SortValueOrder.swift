import Foundation

/// The total order of values in a sort (``KeyPathSort``): missing and `null` first, then bools,
/// numbers (NaN first), strings, dates, bytes, references, arrays and dictionaries.
///
/// Strings are compared as prepared by ``prepared(_:for:)``: folded strings are folded once, when
/// each record's value is read, not at every comparison.
enum SortValueOrder {
    /// A value as the sort compares it: strings folded for a ``KeyPathSort/StringOrder/folded(_:)``
    /// order, at every level.
    static func prepared(_ value: Value?, for order: KeyPathSort.StringOrder) -> Value? {
        guard case .folded(let options) = order, !options.isEmpty, let value else { return value }
        return folded(value, options)
    }

    private static func folded(_ value: Value, _ options: StringComparisonOptions) -> Value {
        switch value {
        case .string(let string): .string(StringFolding.fold(string, options))
        case .array(let elements): .array(elements.map { folded($0, options) })
        case .dictionary(let dictionary): .dictionary(dictionary.mapValues { folded($0, options) })
        default: value
        }
    }

    /// How two prepared values order, ascending.
    static func compare(_ a: Value?, _ b: Value?, strings: KeyPathSort.StringOrder) -> ComparisonResult {
        // The commonest sort key, two ints (a timestamp), without ranking them.
        if case .int(let x)? = a, case .int(let y)? = b { return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame }
        let (rankA, rankB) = (rank(a), rank(b))
        if rankA != rankB { return rankA < rankB ? .orderedAscending : .orderedDescending }
        guard let a, let b else { return .orderedSame }
        switch (a, b) {
        case (.bool(let x), .bool(let y)):
            return ordered(x ? 1 : 0, y ? 1 : 0)
        case (.string(let x), .string(let y)):
            if case .localized(let locale) = strings { return x.compare(y, options: [], range: nil, locale: locale) }
            return UTF8Text.precedes(x, y) ? .orderedAscending : UTF8Text.precedes(y, x) ? .orderedDescending : .orderedSame
        case (.date(let x), .date(let y)):
            return ordered(x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
        case (.bytes(let x), .bytes(let y)):
            return x.lexicographicallyPrecedes(y) ? .orderedAscending : y.lexicographicallyPrecedes(x) ? .orderedDescending : .orderedSame
        case (.reference(let x), .reference(let y)):
            return x < y ? .orderedAscending : y < x ? .orderedDescending : .orderedSame
        case (.array(let x), .array(let y)):
            return sequence(x.map { $0 }, y.map { $0 }, strings: strings)
        case (.dictionary(let x), .dictionary(let y)):
            let (keysX, keysY) = (sortedKeys(x), sortedKeys(y))
            let byKeys = sequence(keysX.map { .string($0) }, keysY.map { .string($0) }, strings: .unicodeScalars)
            guard byKeys == .orderedSame else { return byKeys }
            return sequence(keysX.map { x[$0] }, keysY.map { y[$0] }, strings: strings)
        default:
            // Two numbers (a NaN ranks apart); a NaN is equal to a NaN.
            return CollectionOperator.order(a, b) ?? .orderedSame
        }
    }

    /// The rank of a value's type in the order; values of different ranks order by rank.
    private static func rank(_ value: Value?) -> Int {
        switch value {
        case nil, .null?: 0
        case .bool?: 1
        case .double(let double)? where double.isNaN: 2
        case .int?, .double?: 3
        case .string?: 4
        case .date?: 5
        case .bytes?: 6
        case .reference?: 7
        case .array?: 8
        case .dictionary?: 9
        }
    }

    /// Doubles (of dates) in order, NaN first, equal to itself.
    private static func ordered(_ x: Double, _ y: Double) -> ComparisonResult {
        if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? .orderedSame : x.isNaN ? .orderedAscending : .orderedDescending }
        return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
    }

    /// Element by element, then the shorter first.
    private static func sequence(_ x: [Value?], _ y: [Value?], strings: KeyPathSort.StringOrder) -> ComparisonResult {
        for (a, b) in zip(x, y) {
            let order = compare(a, b, strings: strings)
            if order != .orderedSame { return order }
        }
        return ordered(Double(x.count), Double(y.count))
    }

    private static func sortedKeys(_ dictionary: [String: Value]) -> [String] {
        dictionary.keys.sorted(by: UTF8Text.precedes)
    }
}
