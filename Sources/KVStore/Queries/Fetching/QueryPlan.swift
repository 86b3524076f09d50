/// How a ``RecordQuery`` runs: where its candidate records come from, what is left to check on
/// each, and in what order they come. ``QueryPlanner/plan(for:in:)`` makes it; ``QueryExecutor``
/// runs it.
///
/// An access path other than a scan (an index range) plugs in as a case of ``Access`` with a
/// ``CandidateSource`` of its own; the planner states what that path guarantees:
/// - ``residual``: the part of the predicate its candidates do not already satisfy (nil when they
///   all match: the executor then reads no record to filter, and `count` reads none at all);
/// - ``order``: `.sorted(query.sort)` when its candidates come in the query's order, ties by id
///   ascending (then the executor streams, and `limit` stops the access path early); otherwise
///   the executor orders them itself (a top-k heap of offset + limit entries when there is a limit).
struct QueryPlan: Hashable, CustomStringConvertible {
    /// An access path: what finds the candidates.
    enum Access: Hashable {
        /// Every record of the kind, in id order.
        case scan(KindScan)
        /// The records of an index's ranges and its unknown bucket.
        case index(IndexScan)
        /// The records of several index scans, one per operand of an `OR`.
        case union(IndexUnion)
    }

    /// The order candidates come in.
    enum Order: Hashable {
        /// By these descriptors, then by id ascending; `.sorted([])` is id order.
        case sorted([KeyPathSort])
        /// By the first `leading` of these descriptors (at least one), ties in any order: the
        /// executor sorts each run of equal leading values, and stops after the run that
        /// completes the page.
        case grouped([KeyPathSort], leading: Int)
        /// No order the executor can use.
        case unordered
    }

    var access: Access
    /// The predicate each candidate must still satisfy; nil when every candidate is a result.
    var residual: KeyPathPredicate?
    var order: Order
    /// For an index scan whose candidates are all results and whose one range is an equality on
    /// a proper leading prefix of the index: that prefix, encoded — its stored count
    /// (``IndexPrefixCounts``) is the number of results.
    var countedPrefix: [UInt8]?

    /// The number of results when the store counts them (``countedPrefix``); nil otherwise.
    func knownCount(in transaction: ReadTransaction) throws -> Int? {
        guard residual == nil, let countedPrefix, case .index(let scan) = access else { return nil }
        return try transaction.prefixCount(of: scan.built, prefix: countedPrefix)
    }

    /// One line, as `explain` prints it: `scan KIND`, `index KIND.NAME` (`index item.feed,published`),
    /// or for a union the indexes joined by ` | ` (`index item.feed | index item.tags`).
    var description: String {
        switch access {
        case .scan(let scan): "scan \(scan.kind)"
        case .index(let scan): "index \(scan.built.qualifiedName)"
        case .union(let union): union.description
        }
    }
}

/// Chooses the plan of a query: the one place where an access path is picked.
enum QueryPlanner {
    /// The plan for `query` in `transaction`: the ranges of the index that bounds the most key
    /// paths by equality (``IndexChoice``); else, for an `OR` whose operands each have an index,
    /// the union of their scans (``IndexUnion``: the whole predicate re-checked, the executor
    /// ordering); else a scan of the kind. A kind whose
    /// `valueForUndefinedKey` hook gives values no index holds is always scanned.
    ///
    /// An index's candidates are a superset of the results (entries re-checked, the unknown
    /// bucket, `[c]` on a folded index), so the whole predicate stays the residual unless no entry
    /// of its ranges needs a re-check: then the conjuncts that are exact conditions of the index
    /// (``IndexCondition/isExact(on:)``) are left out of it (``residual(of:without:)``). They come in the query's order when the index's key paths after the equalities
    /// are the sort's (``IndexChoice/givesWholeOrder(sortKeys:of:)``; descending reads it backward)
    /// and its entries allow it (``IndexScan/survey(in:sortKeys:sortOffset:wantsExact:)``, which
    /// reads no entry of the ranges); grouped by the leading sort keys when the index gives their
    /// order only (``IndexChoice/orderableSortKeys(of:)``); else unordered.
    static func plan(for query: RecordQuery, in transaction: ReadTransaction) throws -> QueryPlan {
        let residual = query.predicate == .true ? nil : query.predicate
        guard try transaction.effectiveKind(named: query.kind)?.valueForUndefinedKey == nil else {
            return QueryPlan(access: .scan(KindScan(kind: query.kind)), residual: residual, order: .sorted([]))
        }
        guard let choice = try IndexChoice.best(for: query, in: transaction) else {
            if let union = try IndexUnion.best(for: query, in: transaction) {
                return QueryPlan(access: .union(union), residual: residual, order: .unordered)
            }
            // A page of every record in a sort's order: read an index in that order, when one
            // gives it, instead of the whole kind (a table sorted by a column, 50 at a time).
            if query.predicate == .true, query.limit != nil, let choice = try IndexChoice.inOrder(for: query, in: transaction) {
                let plan = try Self.plan(for: query, reading: choice, residual: residual, in: transaction)
                if plan.order != .unordered { return plan }
            }
            return QueryPlan(access: .scan(KindScan(kind: query.kind)), residual: residual, order: .sorted([]))
        }
        return try plan(for: query, reading: choice, residual: residual, in: transaction)
    }

    /// The plan that reads the ranges of `choice`.
    private static func plan(for query: RecordQuery, reading choice: IndexChoice, residual: KeyPathPredicate?,
                             in transaction: ReadTransaction) throws -> QueryPlan {
        var residual = residual
        let answerable = choice.used.filter { $0.isExact(on: choice.scan.built.index) }
        let orderable = choice.orderableSortKeys(of: query)
        let wholeOrder = choice.givesWholeOrder(sortKeys: orderable, of: query)
        var order = QueryPlan.Order.unordered
        var scan = choice.scan
        if !answerable.isEmpty || orderable > 0 || wholeOrder {
            let sortKeys = query.sort.prefix(orderable).enumerated().map {
                IndexScan.SortKey(position: choice.equalityCount + $0.offset, strings: $0.element.strings)
            }
            let survey = try choice.scan.survey(in: transaction, sortKeys: sortKeys, sortOffset: choice.sortOffset, wantsExact: !answerable.isEmpty)
            if survey.exact { residual = Self.residual(of: query.predicate, without: answerable) }
            scan.recordsHaveOneEntry = survey.recordsHaveOneEntry
            if let ordered = survey.orderedKeys {
                if wholeOrder && ordered == orderable {
                    order = .sorted(query.sort)
                } else if ordered > 0 {
                    order = .grouped(query.sort, leading: ordered)
                }
            }
        }
        scan.reverse = order != .unordered && query.sort.first?.ascending == false
        if order != .unordered, scan.ranges.count > 1 { scan.mergeOffsets = choice.rangeOffsets }
        var plan = QueryPlan(access: .index(scan), residual: residual, order: order)
        if residual == nil { plan.countedPrefix = choice.countedPrefix }
        return plan
    }
}

extension QueryPlanner {
    /// `predicate` without the conjuncts of its top-level `AND` that `answered` state, which
    /// every candidate of an exact index scan satisfies; nil when none is left.
    static func residual(of predicate: KeyPathPredicate, without answered: [IndexCondition]) -> KeyPathPredicate? {
        var left = IndexChoice.conjuncts(of: predicate)
        for condition in answered {
            if let index = left.firstIndex(of: .comparison(condition.comparison)) { left.remove(at: index) }
        }
        left.removeAll { $0 == .true }
        return left.isEmpty ? nil : left.count == 1 ? left[0] : .and(left)
    }
}

/// What ``ReadTransaction/explain(_:)`` tells of a query's plan.
///
/// Its description is one line: `scan item` when the query reads every record of the kind,
/// `index item.feed` (`index item.feed,published` for a compound index) when it reads an index's
/// ranges, and `index item.feed | index item.tags` when it reads the union of several indexes'
/// ranges, one per operand of an `OR` (each index named once).
public struct QueryExplanation: Sendable, Hashable, CustomStringConvertible {
    /// The line: `scan KIND`, `index KIND.NAME` (the key paths joined by commas), or several
    /// `index KIND.NAME` joined by ` | `.
    public let description: String

    init(_ plan: QueryPlan) {
        description = plan.description
    }
}
