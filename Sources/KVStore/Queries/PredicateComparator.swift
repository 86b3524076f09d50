import Foundation

/// How a comparison treats two values, one of them possibly missing.
///
/// - Ints and doubles compare by exact numeric value (`2^53 + 1` is not `2^53` as a double); NaN
///   is unequal to every number, itself included, and orders with none.
/// - Strings compare in the form ``StringFolding`` gives them for the options, by Unicode scalar.
/// - Dates compare in time order; bools, bytes and references by equality only; arrays and
///   dictionaries by equality of their elements under these rules.
/// - A missing value, `null`, or a pair of types with no common order makes the comparison false
///   (both `==` and `!=`: `x != 5` does not hold for a record without `x`).
struct PredicateComparator {
    let op: PredicateOperator
    let options: StringComparisonOptions
    /// The compiled `MATCHES` pattern, when the operator is `MATCHES` and the pattern is known.
    let regularExpression: WholeStringExpression?

    /// Whether `left op right` holds, for one left value (quantifiers are applied by the caller).
    ///
    /// - Throws: ``KeyPathPredicateError/Code/regularExpressionTooCostly`` from `MATCHES`.
    func holds(_ left: Value?, _ right: Value?) throws(KeyPathPredicateError) -> Bool {
        guard let left, let right, !left.isNull, !right.isNull else { return false }
        switch op {
        case .equal: return equal(left, right) == true
        case .notEqual: return equal(left, right) == false
        case .less: return order(left, right) == .orderedAscending
        case .lessOrEqual: return order(left, right).map { $0 != .orderedDescending } ?? false
        case .greater: return order(left, right) == .orderedDescending
        case .greaterOrEqual: return order(left, right).map { $0 != .orderedAscending } ?? false
        case .between:
            guard case .array(let bounds) = right, bounds.count == 2,
                  let low = order(left, bounds[0]), let high = order(left, bounds[1]) else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case .in:
            guard case .array(let elements) = right else { return false }
            return elements.contains { equal(left, $0) == true }
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard case .string(let string) = left, case .string(let pattern) = right else { return false }
            return try matches(string, pattern)
        }
    }

    private func matches(_ string: String, _ pattern: String) throws(KeyPathPredicateError) -> Bool {
        if op == .matches {
            guard let regularExpression else { return false }
            // [c] is the expression's own case-insensitive matching: folding `ß` to `ss` first
            // would stop `stra.e` matching `Straße`.
            return try StringMatching.matches(StringFolding.fold(string, options.subtracting(.caseInsensitive)), regularExpression)
        }
        if op != .like, let matched = StringMatching.asciiMatch(op, string, pattern, options: options) { return matched }
        let (string, pattern) = (StringFolding.fold(string, options), StringFolding.fold(pattern, options))
        switch op {
        case .beginsWith: return StringMatching.beginsWith(string, pattern)
        case .endsWith: return StringMatching.endsWith(string, pattern)
        case .contains: return StringMatching.contains(string, pattern)
        default: return StringMatching.like(string, pattern)
        }
    }

    /// Whether two values are equal; nil when their types cannot be compared (a mismatch).
    func equal(_ left: Value, _ right: Value) -> Bool? {
        switch (left, right) {
        case (.int, .int), (.int, .double), (.double, .int), (.double, .double), (.string, .string), (.date, .date):
            guard let order = order(left, right) else { return isNaN(left) || isNaN(right) ? false : nil }
            return order == .orderedSame
        case (.null, .null):
            return true
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return false }
            return zip(a, b).allSatisfy { equal($0, $1) == true }
        case (.dictionary(let a), .dictionary(let b)):
            guard a.count == b.count else { return false }
            return a.allSatisfy { key, value in b[key].map { equal(value, $0) == true } ?? false }
        default:
            return left.type == right.type ? left == right : nil
        }
    }

    /// How two values order; nil when they have no common order or one is NaN.
    func order(_ left: Value, _ right: Value) -> ComparisonResult? {
        switch (left, right) {
        case (.string(let a), .string(let b)):
            let (a, b) = (StringFolding.fold(a, options), StringFolding.fold(b, options))
            return UTF8Text.precedes(a, b) ? .orderedAscending : UTF8Text.precedes(b, a) ? .orderedDescending : .orderedSame
        case (.date(let a), .date(let b)):
            guard !a.timeIntervalSinceReferenceDate.isNaN, !b.timeIntervalSinceReferenceDate.isNaN else { return nil }
            return CollectionOperator.order(left, right)
        default:
            guard !isNaN(left), !isNaN(right) else { return nil }
            return CollectionOperator.order(left, right)
        }
    }

    private func isNaN(_ value: Value) -> Bool {
        if case .double(let double) = value { return double.isNaN }
        return false
    }
}
