import Foundation
@testable import KVStore

/// A key-path expression, for building expected predicates.
func path(_ text: String) -> KeyPathExpression {
    .keyPath(try! KeyValuePath(text))
}

/// `left op right` as a predicate.
func compare(
    _ left: KeyPathExpression, _ op: PredicateOperator, _ right: KeyPathExpression,
    options: StringComparisonOptions = [], quantifier: PredicateQuantifier? = nil
) -> KeyPathPredicate {
    .comparison(PredicateComparison(left, op, right, options: options, quantifier: quantifier))
}

/// The error `KeyPathPredicate(text)` throws; nil when it parses.
func parseError(_ text: String) -> KeyPathPredicateError? {
    do {
        _ = try KeyPathPredicate(text)
        return nil
    } catch {
        return error
    }
}
