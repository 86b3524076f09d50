import Foundation

/// Evaluates a ``KeyPathPredicate`` against one record, reading key paths with ``KeyPathEvaluator``.
///
/// The rules (<doc:PredicateLanguage>):
/// - A key path that is missing, runs into a value that is not a container, or fails an operator
///   gives no value, and a comparison with no value is false; `== nil` and `!= nil` (a `nil`
///   literal on either side) test whether the other side has a value: the value itself without a
///   quantifier (an empty array is a value), each element with one (`ANY lines.qty == nil`).
/// - A left side that is an array (a key path crossing arrays: `lines.sku`, or naming one: `tags`)
///   compares ANY element by default, nested arrays flattened, as Realm and Core Data's SQL store
///   do; `ALL` and `NONE` ask for every or no element. `==` and `!=` with an array on both sides
///   compare the arrays whole. Only the left side fans out.
/// - `ANY`/`ALL`/`NONE` over a single value treat it as a collection of one; over a missing value,
///   as an empty collection, except that `ALL` over a missing value is false.
struct PredicateEvaluator<Source: KeyValueSource> {
    let source: Source
    let record: RecordRef
    var variables: [String: Value]
    /// `MATCHES` patterns compiled so far in this evaluation (a subquery may meet one per element).
    let compiled = CompiledPatterns()

    func holds(_ predicate: KeyPathPredicate) throws -> Bool {
        switch predicate {
        case .true: true
        case .false: false
        case .and(let operands): try operands.allSatisfy(holds)
        case .or(let operands): try operands.contains(where: holds)
        case .not(let operand): try !holds(operand)
        case .comparison(let comparison): try holds(comparison)
        }
    }

    private func holds(_ comparison: PredicateComparison) throws -> Bool {
        if let presence = Self.presenceTest(comparison) {
            let tested = try value(comparison.left == .constant(.null) ? comparison.right : comparison.left)
            return try quantified(comparison.quantifier, tested, implicit: false) { element in
                presence == (element == nil || element == .null)
            }
        }
        let left = try value(comparison.left)
        let right = try value(comparison.right)
        let comparator = PredicateComparator(
            op: comparison.operator, options: comparison.options,
            regularExpression: try regularExpression(comparison, pattern: right)
        )
        let wholeArrays = (comparison.operator == .equal || comparison.operator == .notEqual)
            && right?.arrayValue != nil
        return try quantified(comparison.quantifier, left, implicit: !wholeArrays) { element in
            try comparator.holds(element, right)
        }
    }

    /// For `x == nil`, true (the element must be nil); for `x != nil`, false; otherwise nil.
    private static func presenceTest(_ comparison: PredicateComparison) -> Bool? {
        guard comparison.operator == .equal || comparison.operator == .notEqual,
              comparison.left == .constant(.null) || comparison.right == .constant(.null) else { return nil }
        return comparison.operator == .equal
    }

    /// Applies the quantifier (or the implicit ANY over an array) to the left value.
    private func quantified(
        _ quantifier: PredicateQuantifier?, _ left: Value?, implicit: Bool, _ test: (Value?) throws -> Bool
    ) throws -> Bool {
        switch quantifier {
        case nil:
            guard implicit, case .array = left else { return try test(left) }
            return try Self.elements(left).contains(where: test)
        case .anyElement?: return try Self.elements(left).contains(where: test)
        case .everyElement?: return try left != nil && Self.elements(left).allSatisfy(test)
        case .noElement?: return try !Self.elements(left).contains(where: test)
        }
    }

    /// The elements a quantifier ranges over: arrays flattened, one value alone, nothing for nil.
    private static func elements(_ value: Value?) -> [Value] {
        switch value {
        case nil, .null?: return []
        case .array(let elements)?:
            return elements.flatMap { element in element.arrayValue == nil ? [element] : Self.elements(element) }
        case let other?: return [other]
        }
    }

    private func regularExpression(_ comparison: PredicateComparison, pattern: Value?) throws -> WholeStringExpression? {
        guard comparison.operator == .matches, case .string(let pattern)? = pattern else { return nil }
        let key = "\(comparison.options.rawValue):\(pattern)"
        if let known = compiled.patterns[key] { return known }
        let folded = comparison.options.contains(.diacriticInsensitive)
            ? StringFolding.fold(pattern, .diacriticInsensitive) : pattern
        let regularExpression = try StringMatching.regularExpression(
            folded, caseInsensitive: comparison.options.contains(.caseInsensitive)
        )
        compiled.patterns[key] = regularExpression
        return regularExpression
    }

    // MARK: - Expressions

    /// The value of an expression; nil when a key path has none.
    func value(_ expression: KeyPathExpression) throws -> Value? {
        switch expression {
        case .constant(let value):
            return value
        case .keyPath(let path):
            return try value(at: path, in: .reference(record))
        case .variable(let name, let path):
            guard let value = variables[name] else { throw Self.unbound(name) }
            return try path.map { try self.value(at: $0, in: value) } ?? value
        case .list(let elements):
            return .array(try elements.map { try value($0) ?? .null })
        case .subquery(let subquery, let path):
            let kept = try Self.elements(try value(subquery.collection)).filter { element in
                var inner = self
                inner.variables[subquery.variable] = element
                return try inner.holds(subquery.predicate)
            }
            return try path.map { try value(at: $0, in: .array(kept)) } ?? .array(kept)
        }
    }

    /// The key path's value from `start`; nil when it has none, or cannot be read from this value
    /// (a key into a number, an operator over a non-array, a sum of strings).
    private func value(at path: KeyValuePath, in start: Value) throws -> Value? {
        do {
            return try KeyPathEvaluator.value(at: path.components[...], in: start, source: source, fullPath: path)
        } catch is KeyValueCodingError {
            return nil
        }
    }

    static func unbound(_ name: String) -> KeyPathPredicateError {
        KeyPathPredicateError(.unboundVariable, "the variable $\(name) has no value; pass it in variables")
    }
}

extension KeyPathPredicate {
    /// The first `$variable` the predicate uses that is neither in `bound` nor bound by an
    /// enclosing subquery; nil when there is none.
    func unboundVariable(_ bound: Set<String>) -> String? {
        switch self {
        case .true, .false: nil
        case .and(let operands), .or(let operands): operands.lazy.compactMap { $0.unboundVariable(bound) }.first
        case .not(let operand): operand.unboundVariable(bound)
        case .comparison(let comparison):
            comparison.left.unboundVariable(bound) ?? comparison.right.unboundVariable(bound)
        }
    }
}

extension KeyPathExpression {
    func unboundVariable(_ bound: Set<String>) -> String? {
        switch self {
        case .constant, .keyPath: nil
        case .variable(let name, _): bound.contains(name) ? nil : name
        case .list(let elements): elements.lazy.compactMap { $0.unboundVariable(bound) }.first
        case .subquery(let subquery, _):
            subquery.collection.unboundVariable(bound)
                ?? subquery.predicate.unboundVariable(bound.union([subquery.variable]))
        }
    }
}

/// The regular expressions one evaluation has compiled, by options and pattern.
final class CompiledPatterns {
    var patterns: [String: WholeStringExpression] = [:]
}
