/// An index a query can read, with the ranges that hold its candidates: the planner's choice
/// among the kind's declared and built indexes.
///
/// A query's top-level `AND` conjuncts are matched against an index's key paths: equalities
/// (`==`, `IN`) on its leading key paths, then one range (`<`, `<=`, `>`, `>=`, `BETWEEN`,
/// `BEGINSWITH`, `== nil`, or another equality) on the next. Several `IN` values give several
/// ranges (their cross product, for `IN`s on several key paths). A literal on the left (`5 < age`)
/// counts as the mirrored comparison, whose entries from an array's element are re-checked
/// (``IndexCondition/testsWholeValues``).
struct IndexChoice {
    let scan: IndexScan
    /// The key paths the conditions bound by equality.
    let equalityCount: Int
    /// Whether a range condition follows the equalities.
    let hasRange: Bool
    /// The conditions the ranges state.
    let used: [IndexCondition]
    /// The values of the equalities, when they are one each (no `IN`): the start of every
    /// candidate's tuple.
    let prefix: [Value]?
    /// Per range, the length of the equalities' values its tuples start with.
    let rangeOffsets: [Int]

    /// The most ranges an index scan reads (the product of the `IN` lists).
    static let maximumRanges = 256

    /// The best index of `kind` for `query`: the one whose conditions bound the most key paths by
    /// equality, then with a range; nil when none serves a conjunct.
    static func best(for query: RecordQuery, in transaction: ReadTransaction) throws -> IndexChoice? {
        let conditions = Self.conditions(of: query)
        guard !conditions.isEmpty else { return nil }
        var best: IndexChoice?
        for index in try transaction.indexes(ofKind: query.kind) {
            guard let found = match(index, conditions), let built = try transaction.builtIndex(index, ofKind: query.kind) else { continue }
            let choice = IndexChoice(scan: IndexScan(built: built, ranges: found.ranges), equalityCount: found.equalities,
                                     hasRange: found.used.count > found.equalities, used: found.used, prefix: found.prefix,
                                     rangeOffsets: found.offsets)
            if best.map({ choice.ranks(above: $0, for: query) }) ?? true { best = choice }
        }
        return best
    }

    /// The whole of an index of `kind` whose first key path is the query's first sort key, for
    /// a query without conditions: its entries come in that key's order (the planner keeps it
    /// only when its survey says the entries allow that order).
    static func inOrder(for query: RecordQuery, in transaction: ReadTransaction) throws -> IndexChoice? {
        guard let first = query.sort.first else { return nil }
        for index in try transaction.indexes(ofKind: query.kind) where index.keyPaths.first == first.keyPath {
            guard let built = try transaction.builtIndex(index, ofKind: query.kind), let whole = IndexKeyRange(folded: index.isFolded) else { continue }
            return IndexChoice(scan: IndexScan(built: built, ranges: [whole]), equalityCount: 0, hasRange: false, used: [], prefix: [],
                               rangeOffsets: [0])
        }
        return nil
    }

    /// The conditions an index could serve among the conjuncts of `query`'s predicate.
    static func conditions(of query: RecordQuery) -> [IndexCondition] {
        conjuncts(of: query.predicate).compactMap { conjunct -> IndexCondition? in
            guard case .comparison(let comparison) = conjunct else { return nil }
            return IndexCondition(comparison, variables: query.variables)
        }
    }

    /// More equalities first, then a range, then one that can give more of the query's order.
    private func ranks(above other: IndexChoice, for query: RecordQuery) -> Bool {
        let (mine, theirs) = ((equalityCount, hasRange ? 1 : 0), (other.equalityCount, other.hasRange ? 1 : 0))
        return mine != theirs ? mine > theirs : orderableSortKeys(of: query) > other.orderableSortKeys(of: query)
    }

    /// How many of the query's sort descriptors, from the first, are the index's key paths after
    /// the equalities, each in the first one's direction (a descending one reads the index
    /// backward): the index's key order is theirs, if its entries allow (see
    /// ``IndexScan/survey(in:sortKeys:sortOffset:wantsExact:)``) — merging the ranges when there are
    /// several (``IndexScan/mergeOffsets``).
    func orderableSortKeys(of query: RecordQuery) -> Int {
        guard let first = query.sort.first else { return 0 }
        return zip(scan.built.index.keyPaths[equalityCount...], query.sort).prefix { path, sort in
            path == sort.keyPath && sort.ascending == first.ascending
        }.count
    }

    /// Whether the index's key order is the query's whole order, ties by id, when its first
    /// `sortKeys` are (and the entries allow): they are all the sort descriptors and all the key
    /// paths after the equalities (for no sort, id order: every key path is an equality).
    func givesWholeOrder(sortKeys: Int, of query: RecordQuery) -> Bool {
        prefix != nil && scan.ranges.count <= 1 && sortKeys == query.sort.count && scan.built.index.keyPaths.count == equalityCount + sortKeys
    }

    /// Where the first sort key's component starts in each candidate's tuple: after the
    /// equalities' values (nil when they are not one value each).
    var sortOffset: Int? {
        prefix.map { Self.encodedLength($0, folded: scan.built.index.isFolded) }
    }

    /// The operands of a top-level `AND`, nested ones flattened; the predicate itself otherwise.
    static func conjuncts(of predicate: KeyPathPredicate) -> [KeyPathPredicate] {
        guard case .and(let operands) = predicate else { return [predicate] }
        return operands.flatMap(conjuncts(of:))
    }

    /// The ranges of `index` that `conditions` give; nil when none is on its first key path.
    private static func match(
        _ index: KindIndex, _ conditions: [IndexCondition]
    ) -> (ranges: [IndexKeyRange], offsets: [Int], equalities: Int, used: [IndexCondition], prefix: [Value]?)? {
        var prefixes: [[Value]] = [[]]
        var equalities = 0
        var used: [IndexCondition] = []
        for path in index.keyPaths {
            guard let condition = conditions.first(where: { $0.keyPath == path && $0.isEquality && $0.isServed(by: index) }) else { break }
            let values = condition.conditions.map { if case .equal(let value) = $0 { value } else { Value.null } }
            guard prefixes.count * values.count <= maximumRanges else { break }
            prefixes = prefixes.flatMap { prefix in values.map { prefix + [$0] } }
            equalities += 1
            used.append(condition)
        }
        // The last equality as the range condition keeps the prefix's values free of arrays.
        var rangeConditions: [IndexKeyRange.Condition?] = [nil]
        var hasRange = false
        if equalities < index.keyPaths.count,
           let condition = conditions.first(where: { $0.keyPath == index.keyPaths[equalities] && $0.isServed(by: index) }),
           prefixes.count * condition.conditions.count <= maximumRanges {
            rangeConditions = condition.conditions
            hasRange = true
            used.append(condition)
        }
        guard equalities > 0 || hasRange else { return nil }
        var ranges: [IndexKeyRange] = [], offsets: [Int] = []
        for prefix in prefixes {
            let offset = encodedLength(prefix, folded: index.isFolded)
            for condition in rangeConditions {
                guard var range = IndexKeyRange(equal: prefix, then: condition, folded: index.isFolded) else { return nil }
                if used.contains(where: \.testsWholeValues) { range.recheckElements = true }
                if !range.isEmpty {
                    ranges.append(range)
                    offsets.append(offset)
                }
            }
        }
        return (ranges, offsets, equalities, used, prefixes.count == 1 ? prefixes[0] : nil)
    }

    /// The equalities' values encoded, when they are one each, bound fewer key paths than the
    /// index has and nothing else: the prefix whose stored count (``IndexPrefixCounts``) is the
    /// number of records in the one range, when the store counts it.
    var countedPrefix: [UInt8]? {
        guard let prefix, !hasRange, equalityCount < scan.built.index.keyPaths.count, scan.ranges.count == 1 else { return nil }
        var bytes: [UInt8] = []
        for value in prefix { IndexKeyEncoding.append(value, folded: scan.built.index.isFolded, to: &bytes) }
        return scan.ranges[0].lower == bytes ? bytes : nil
    }

    /// The length of `values` encoded as a tuple's start.
    private static func encodedLength(_ values: [Value], folded: Bool) -> Int {
        var bytes: [UInt8] = []
        for value in values { IndexKeyEncoding.append(value, folded: folded, to: &bytes) }
        return bytes.count
    }
}
