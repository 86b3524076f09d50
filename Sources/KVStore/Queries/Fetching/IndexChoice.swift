/// An index a query can read, with the ranges that hold its candidates: the planner's choice
/// among the kind's declared and built indexes.
///
/// A query's top-level `AND` conjuncts are matched against an index's key paths: equalities
/// (`==`, `IN`) on its leading key paths, then one range (`<`, `<=`, `>`, `>=`, `BETWEEN`,
/// `BEGINSWITH`, `== nil`, or another equality) on the next. Several `IN` values give several
/// ranges (their cross product, for `IN`s on several key paths).
struct IndexChoice {
    let scan: IndexScan
    /// The key paths the conditions bound by equality.
    let equalityCount: Int
    /// Whether a range condition follows the equalities.
    let hasRange: Bool

    /// The most ranges an index scan reads (the product of the `IN` lists).
    static let maximumRanges = 256

    /// The best index of `kind` for `query`: the one whose conditions bound the most key paths by
    /// equality, then with a range; nil when none serves a conjunct.
    static func best(for query: RecordQuery, in transaction: ReadTransaction) throws -> IndexChoice? {
        let conditions = conjuncts(of: query.predicate).compactMap { conjunct -> IndexCondition? in
            guard case .comparison(let comparison) = conjunct else { return nil }
            return IndexCondition(comparison, variables: query.variables)
        }
        guard !conditions.isEmpty else { return nil }
        var best: IndexChoice?
        for index in try transaction.indexes(ofKind: query.kind) {
            guard let choice = match(index, conditions), let built = try transaction.builtIndex(index, ofKind: query.kind) else { continue }
            let found = IndexChoice(scan: IndexScan(built: built, ranges: choice.ranges), equalityCount: choice.equalities, hasRange: choice.hasRange)
            if best.map({ found.ranks(above: $0) }) ?? true { best = found }
        }
        return best
    }

    private func ranks(above other: IndexChoice) -> Bool {
        (equalityCount, hasRange ? 1 : 0) > (other.equalityCount, other.hasRange ? 1 : 0)
    }

    /// The operands of a top-level `AND`, nested ones flattened; the predicate itself otherwise.
    static func conjuncts(of predicate: KeyPathPredicate) -> [KeyPathPredicate] {
        guard case .and(let operands) = predicate else { return [predicate] }
        return operands.flatMap(conjuncts(of:))
    }

    /// The ranges of `index` that `conditions` give; nil when none is on its first key path.
    private static func match(_ index: KindIndex, _ conditions: [IndexCondition]) -> (ranges: [IndexKeyRange], equalities: Int, hasRange: Bool)? {
        var prefixes: [[Value]] = [[]]
        var equalities = 0
        for path in index.keyPaths {
            guard let condition = conditions.first(where: { $0.keyPath == path && $0.isEquality && $0.isServed(by: index) }) else { break }
            let values = condition.conditions.map { if case .equal(let value) = $0 { value } else { Value.null } }
            guard prefixes.count * values.count <= maximumRanges else { break }
            prefixes = prefixes.flatMap { prefix in values.map { prefix + [$0] } }
            equalities += 1
        }
        // The last equality as the range condition keeps the prefix's values free of arrays.
        var rangeConditions: [IndexKeyRange.Condition?] = [nil]
        var hasRange = false
        if equalities < index.keyPaths.count,
           let condition = conditions.first(where: { $0.keyPath == index.keyPaths[equalities] && $0.isServed(by: index) }),
           prefixes.count * condition.conditions.count <= maximumRanges {
            rangeConditions = condition.conditions
            hasRange = true
        }
        guard equalities > 0 || hasRange else { return nil }
        var ranges: [IndexKeyRange] = []
        for prefix in prefixes {
            for condition in rangeConditions {
                guard let range = IndexKeyRange(equal: prefix, then: condition, folded: index.isFolded) else { return nil }
                if !range.isEmpty { ranges.append(range) }
            }
        }
        return (ranges, equalities, hasRange)
    }
}
