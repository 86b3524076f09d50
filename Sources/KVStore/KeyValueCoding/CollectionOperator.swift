import Foundation

/// A collection operator in a key path: `@count`, `@sum`, `@avg`, `@max`, `@min` and the unions.
///
/// In `items.@sum.amount` the *left* key path `items` names the collection (an array value, or all
/// records of a kind), and the *right* key path `amount` is read from each element:
///
/// ```swift
/// try store.value(forKeyPath: "lines.@sum.amount", of: invoice)          // .int(1250)
/// try store.value(forKeyPath: "lines.@distinctUnionOfObjects.sku", of: invoice)
/// try store.value(forKeyPath: "@count", ofKind: "invoice")                // every invoice
/// ```
///
/// The rules, after Foundation's:
/// - `@count` counts the elements, nulls included, and ignores a right key path; on a dictionary
///   it counts the entries, as `NSDictionary` does.
/// - `@sum` treats missing and null as 0. Ints alone sum exactly to an int (a result outside `Int64`
///   is an ``KeyValueCodingError/Code/arithmeticOverflow`` error, even though partial sums may go
///   beyond it); any double makes the result a double. The sum of nothing is `0`.
/// - `@avg` treats missing and null as 0 *and counts them*; the average of nothing is nil; the
///   result is always a double.
/// - `@max` and `@min` skip nulls and NaNs, order ints and doubles together by exact numeric value,
///   strings by their UTF-8 bytes (which is Unicode scalar order), and dates by time; other types,
///   or a mix of these orders, are an error. They return the element's own value (an int stays
///   an int); with ties, the first one. Nothing to compare gives nil.
/// - `@unionOfObjects` gives the right-path values in order, nulls left out, duplicates kept;
///   `@distinctUnionOfObjects` keeps only the first of equal values (by ``Value``'s equality, so
///   `1` and `1.0` are distinct).
/// - `@unionOfArrays`, `@distinctUnionOfArrays`, `@distinctUnionOfSets` need a collection of arrays
///   (null elements are skipped, any other non-array is an error); the right key path is read from
///   each element of each inner array and the results are concatenated, nulls left out. The two
///   distinct variants (there are no set values; they behave alike) keep the first of equal values.
public enum CollectionOperator: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `@count`: the number of elements, nulls included; a right key path is ignored.
    case count
    /// `@sum`: the sum of the right-path values, missing and null counting as 0; exact for ints.
    case sum
    /// `@avg`: the average of the right-path values as a double, missing and null counting as 0;
    /// nil for no elements.
    case avg
    /// `@max`: the greatest right-path value (nulls and NaNs skipped); nil when there is none.
    case max
    /// `@min`: the least right-path value (nulls and NaNs skipped); nil when there is none.
    case min
    /// `@unionOfObjects`: the right-path values in order, nulls left out, duplicates kept.
    case unionOfObjects
    /// `@distinctUnionOfObjects`: the right-path values in order, nulls left out, the first of
    /// equal values kept.
    case distinctUnionOfObjects
    /// `@unionOfArrays`: the right-path values of the elements of each inner array, concatenated,
    /// nulls left out.
    case unionOfArrays
    /// `@distinctUnionOfArrays`: as ``unionOfArrays``, keeping the first of equal values.
    case distinctUnionOfArrays
    /// `@distinctUnionOfSets`: as ``distinctUnionOfArrays`` (there are no set values).
    case distinctUnionOfSets

    /// The operator as written in a key path: `@sum`.
    public var description: String { "@\(rawValue)" }

    /// Every operator as written, comma-separated, for error messages.
    static var list: String { allCases.map(\.description).joined(separator: ", ") }
}

// MARK: - Applying an operator

extension CollectionOperator {
    /// Applies the operator to `elements`, reading the right key path from each with `rightPath`.
    ///
    /// `@count` does not call `rightPath`. The union-of-arrays family calls it on each element of
    /// each inner array; the others call it on each element, in order.
    ///
    /// - Parameters:
    ///   - elements: the collection the left key path named.
    ///   - keyPath: the whole key path, for error messages.
    ///   - rightPath: the value of the right key path for one element; nil when missing.
    /// - Returns: the result; nil for `@avg`, `@max` and `@min` when there is nothing to average or
    ///   compare.
    package func apply(
        to elements: [Value],
        keyPath: String,
        rightPath: (Value) throws -> Value?
    ) throws -> Value? {
        switch self {
        case .count:
            return .int(Int64(elements.count))
        case .unionOfArrays, .distinctUnionOfArrays, .distinctUnionOfSets:
            var values: [Value?] = []
            for element in elements {
                switch element {
                case .null:
                    continue
                case .array(let inner):
                    for innerElement in inner { values.append(try rightPath(innerElement)) }
                default:
                    throw KeyValueCodingError(
                        code: .notACollection,
                        message: "collection operator \(self) needs a collection of arrays, found "
                            + "\(element.type.withArticle) element (key path '\(keyPath)')",
                        keyPath: keyPath
                    )
                }
            }
            return try combine(values, keyPath: keyPath)
        default:
            return try combine(elements.map(rightPath), keyPath: keyPath)
        }
    }

    /// Combines the values the right key path gave (nil where missing) into the operator's result.
    ///
    /// For `@count` this counts `values`; for the union-of-arrays family it unions `values` as
    /// already flattened. ``apply(to:keyPath:rightPath:)`` is the entry point for whole collections.
    package func combine(_ values: [Value?], keyPath: String) throws(KeyValueCodingError) -> Value? {
        switch self {
        case .count:
            .int(Int64(values.count))
        case .sum:
            try NumericTotal(values, op: self, keyPath: keyPath).sum(keyPath: keyPath)
        case .avg:
            try NumericTotal(values, op: self, keyPath: keyPath).average
        case .max:
            try Self.extreme(values, op: self, keyPath: keyPath, replacesWhen: .orderedDescending)
        case .min:
            try Self.extreme(values, op: self, keyPath: keyPath, replacesWhen: .orderedAscending)
        case .unionOfObjects, .unionOfArrays:
            .array(values.compactMap(Self.nonNull))
        case .distinctUnionOfObjects, .distinctUnionOfArrays, .distinctUnionOfSets:
            .array(Self.distinct(values.compactMap(Self.nonNull)))
        }
    }

    private static func nonNull(_ value: Value?) -> Value? {
        guard let value, !value.isNull else { return nil }
        return value
    }

    private static func distinct(_ values: [Value]) -> [Value] {
        var seen = Set<Value>()
        return values.filter { seen.insert($0).inserted }
    }
}

// MARK: - @sum and @avg

/// The exact total of a collection's numbers.
///
/// Ints are accumulated in a `Foundation.Decimal` (38 significant digits), so the total of any
/// realistic number of `Int64`s is exact and only the final result has to fit in `Int64`. Doubles
/// are accumulated in a `Double`, in order. A `Decimal` becomes a `Double` through its decimal text
/// and `Double(_: String)`, which rounds correctly (`NSDecimalNumber.doubleValue` does not on every
/// platform).
/// A sum or average of numbers: ints exactly in `Decimal`, doubles in the values' order.
struct NumericTotal {
    var ints = Decimal(0)
    var doubles = 0.0
    var hasDouble = false
    var count = 0

    init(_ values: [Value?], op: CollectionOperator, keyPath: String) throws(KeyValueCodingError) {
        for value in values {
            count += 1
            switch value {
            case nil, .null?: break
            case .int(let int)?: ints += Decimal(int)
            case .double(let double)?:
                doubles += double
                hasDouble = true
            case let other?: throw .nonNumeric(op, type: other.type, keyPath: keyPath)
            }
        }
    }

    func sum(keyPath: String) throws(KeyValueCodingError) -> Value {
        if hasDouble { return .double(Self.double(ints) + doubles) }
        guard let exact = Int64(ints.description) else { throw .arithmeticOverflow(.sum, keyPath: keyPath) }
        return .int(exact)
    }

    /// The exact decimal sum divided by the count, for ints alone; nil when there is nothing.
    var average: Value? {
        guard count > 0 else { return nil }
        if hasDouble { return .double((Self.double(ints) + doubles) / Double(count)) }
        return .double(Self.double(ints / Decimal(count)))
    }

    /// The total of ints alone: `ints` over `count` values (nulls included).
    init(intTotal: Decimal, count: Int) {
        ints = intTotal
        self.count = count
    }

    static func double(_ decimal: Decimal) -> Double {
        Double(decimal.description) ?? Double(truncating: NSDecimalNumber(decimal: decimal))
    }
}

// MARK: - @max and @min

extension CollectionOperator {
    /// The first value that no later value beats, by ``order(_:_:)``.
    private static func extreme(
        _ values: [Value?], op: CollectionOperator, keyPath: String, replacesWhen better: ComparisonResult
    ) throws(KeyValueCodingError) -> Value? {
        var best: Value?
        for case let value? in values {
            switch value {
            case .null: continue
            case .double(let double) where double.isNaN: continue
            case .int, .double, .string, .date: break
            default: throw .incomparable(op, value.type, keyPath: keyPath)
            }
            guard let current = best else {
                best = value
                continue
            }
            guard let order = order(value, current) else {
                throw .incomparable(op, value.type, with: current.type, keyPath: keyPath)
            }
            if order == better { best = value }
        }
        return best
    }

    /// How `lhs` compares with `rhs`; nil when they are not of one order (numbers, strings, dates).
    static func order(_ lhs: Value, _ rhs: Value) -> ComparisonResult? {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): compare(a, b)
        case (.double(let a), .double(let b)): compare(a, b)
        case (.int(let a), .double(let b)): compare(a, b)
        case (.double(let a), .int(let b)): compare(b, a).reversed
        case (.string(let a), .string(let b)):
            UTF8Text.precedes(a, b) ? .orderedAscending : UTF8Text.precedes(b, a) ? .orderedDescending : .orderedSame
        case (.date(let a), .date(let b)): compare(a, b)
        default: nil
        }
    }

    private static func compare<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
    }

    /// Compares an int with a double exactly, without rounding the int to a double. `b` is not NaN.
    private static func compare(_ a: Int64, _ b: Double) -> ComparisonResult {
        // 2^63 is exact as a double; every double in [-2^63, 2^63) has an integral part in Int64.
        let twoTo63 = 9_223_372_036_854_775_808.0
        if b >= twoTo63 { return .orderedAscending }
        if b < -twoTo63 { return .orderedDescending }
        let floor = b.rounded(.down)
        let whole = Int64(floor)
        if a != whole { return compare(a, whole) }
        return b > floor ? .orderedAscending : .orderedSame
    }
}

extension ComparisonResult {
    fileprivate var reversed: ComparisonResult {
        switch self {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}
