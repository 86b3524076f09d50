/// A conjunct of a query's predicate that an index range can serve: a comparison of a stored key
/// path with literal values (or bound `$variables`), as ``IndexKeyRange/Condition``s — several for
/// `IN` (any one holds).
struct IndexCondition {
    let keyPath: KeyValuePath
    /// The conditions, any of which the record's value meets.
    let conditions: [IndexKeyRange.Condition]
    /// The comparison's string options.
    let options: StringComparisonOptions
    /// Whether the comparison tests the key path's value whole, an array not fanning out into its
    /// elements: a literal on the left (`5 < age`), which the predicate language compares with the
    /// right side's value as it is. An index's entries from elements must then be re-checked.
    let testsWholeValues: Bool
    /// The conjunct it was read from, as written.
    let comparison: PredicateComparison

    /// Whether it is an equality (`==` a value, or `IN` values) that a compound index can take
    /// as a prefix.
    var isEquality: Bool {
        conditions.allSatisfy { if case .equal = $0 { true } else { false } }
    }

    /// The condition `comparison` states, if an index can serve it: an `ANY` or no quantifier, a
    /// key path on the left (no collection operator), literals on the right — or a literal on the
    /// left of `==`, `<`, `<=`, `>` or `>=` and a key path on the right, read as the mirrored
    /// comparison (`5 < age` as `age > 5`) of the value whole (``testsWholeValues``).
    init?(_ comparison: PredicateComparison, variables: [String: Value]) {
        self.comparison = comparison
        let mirrored = Self.mirrored(comparison, variables)
        let comparison = mirrored ?? comparison
        testsWholeValues = mirrored != nil
        guard comparison.quantifier == nil || comparison.quantifier == .anyElement,
              case .keyPath(let path) = comparison.left, path.firstKey != nil,
              !path.components.contains(where: { if case .operator = $0 { true } else { false } }) else { return nil }
        let right = Self.literal(comparison.right, variables)
        switch comparison.operator {
        case .equal:
            guard let value = right else { return nil }
            if value == .null {
                guard comparison.quantifier == nil else { return nil }
                conditions = [.missing]
            } else {
                conditions = [.equal(value)]
            }
        case .in:
            guard let list = Self.list(comparison.right, variables), !list.isEmpty, list.count <= 64,
                  !list.contains(.null) else { return nil }
            conditions = list.map { .equal($0) }
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let value = right, value != .null else { return nil }
            conditions = [Self.range(comparison.operator, value)]
        case .between:
            guard let bounds = Self.list(comparison.right, variables), bounds.count == 2 else { return nil }
            conditions = [.between(bounds[0], bounds[1])]
        case .beginsWith:
            guard case .string(let prefix)? = right else { return nil }
            conditions = [.beginsWith(prefix)]
        case .like:
            // `LIKE 'abc*'`: the strings that begin with the literal start (a superset; the
            // comparison stays in the residual, as `.beginsWith` is never exact).
            guard case .string(let pattern)? = right, let prefix = Self.literalStart(ofPattern: pattern) else { return nil }
            conditions = [.beginsWith(prefix)]
        default:
            return nil
        }
        keyPath = path
        options = comparison.options
    }

    /// Whether `index` keeps the values this condition compares in an order and form that give a
    /// superset of its matches: a plain index for comparisons without string options; a folded
    /// one for equalities and prefixes with any options, and for ranges only with `[cd]`.
    func isServed(by index: KindIndex) -> Bool {
        guard index.isFolded else { return options.isEmpty }
        if options == [.caseInsensitive, .diacriticInsensitive] { return true }
        return conditions.allSatisfy {
            switch $0 {
            case .equal, .beginsWith, .missing: true
            default: false
            }
        }
    }

    /// Whether an entry of `index` in the condition's range (not re-checked) is certainly a
    /// match: the comparison reads values in the form the index keeps them, no `== nil` or
    /// prefix, values of one class only.
    ///
    /// A plain index keeps a string in NFC and a folded one its `[cd]` fold
    /// (``IndexKeyEncoding/indexedForm(of:folded:)``); a comparison without options compares
    /// strings in NFC, one with `[cd]` their `[cd]` fold (``StringFolding``), each by Unicode
    /// scalars, the order of the encoded bytes. So a string's entry is exact for a comparison
    /// without options on a plain index, and for `[cd]` on a folded one — whatever form the record
    /// stores it in (``IndexStatistics/reformed`` counts departures from a *sort's* order only).
    /// A tuple cut at ``IndexKeyEncoding/maximumTupleLength`` is flagged inexact, and a cut bound
    /// gives its range a re-check prefix: the survey, not this, turns those off.
    func isExact(on index: KindIndex) -> Bool {
        guard index.isFolded ? options == [.caseInsensitive, .diacriticInsensitive] : options.isEmpty else { return false }
        return conditions.allSatisfy { condition in
            switch condition {
            case .equal(let value), .less(let value), .lessOrEqual(let value), .greater(let value), .greaterOrEqual(let value):
                Self.isExactlyIndexed(value)
            case .between(let low, let high): Self.isExactlyIndexed(low) && Self.isExactlyIndexed(high)
            case .beginsWith, .missing: false
            }
        }
    }

    private static func isExactlyIndexed(_ value: Value) -> Bool {
        switch value {
        case .int, .double, .date, .bool, .reference, .string: true
        default: false
        }
    }

    /// The characters a `LIKE` pattern starts with before its first wildcard (`*`, `?`), an
    /// escape (`\*`) read as the character it makes literal; nil when there are none.
    static func literalStart(ofPattern pattern: String) -> String? {
        var start = "", escaping = false
        for character in pattern {
            if escaping {
                escaping = false
            } else if character == "\\" {
                escaping = true
                continue
            } else if character == "*" || character == "?" {
                break
            }
            start.append(character)
        }
        return start.isEmpty ? nil : start
    }

    /// `literal op keyPath` as `keyPath op' literal`, for the operators whose mirror is one; nil
    /// for any other comparison.
    private static func mirrored(_ comparison: PredicateComparison, _ variables: [String: Value]) -> PredicateComparison? {
        guard comparison.quantifier == nil, case .keyPath = comparison.right, literal(comparison.left, variables) != nil else { return nil }
        let mirror: [PredicateOperator: PredicateOperator] = [
            .equal: .equal, .less: .greater, .lessOrEqual: .greaterOrEqual, .greater: .less, .greaterOrEqual: .lessOrEqual,
        ]
        guard let op = mirror[comparison.operator] else { return nil }
        return PredicateComparison(comparison.right, op, comparison.left, options: comparison.options)
    }

    private static func range(_ op: PredicateOperator, _ value: Value) -> IndexKeyRange.Condition {
        switch op {
        case .less: .less(value)
        case .lessOrEqual: .lessOrEqual(value)
        case .greater: .greater(value)
        default: .greaterOrEqual(value)
        }
    }

    /// A literal value: a constant, or a bound variable without a key path.
    private static func literal(_ expression: KeyPathExpression, _ variables: [String: Value]) -> Value? {
        switch expression {
        case .constant(let value): value
        case .variable(let name, keyPath: nil): variables[name]
        default: nil
        }
    }

    /// The values of a literal list (`{a, b}`), or of a literal array.
    private static func list(_ expression: KeyPathExpression, _ variables: [String: Value]) -> [Value]? {
        if case .list(let items) = expression {
            var values: [Value] = []
            for item in items {
                guard let value = literal(item, variables) else { return nil }
                values.append(value)
            }
            return values
        }
        return literal(expression, variables)?.arrayValue
    }
}
