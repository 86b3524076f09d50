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
    }

    /// The order candidates come in.
    enum Order: Hashable {
        /// By these descriptors, then by id ascending; `.sorted([])` is id order.
        case sorted([KeyPathSort])
        /// No order the executor can use.
        case unordered
    }

    var access: Access
    /// The predicate each candidate must still satisfy; nil when every candidate is a result.
    var residual: KeyPathPredicate?
    var order: Order

    /// One line, as `explain` prints it: `scan KIND`, or `index KIND.NAME` (`index item.feed,published`).
    var description: String {
        switch access {
        case .scan(let scan): "scan \(scan.kind)"
        case .index(let scan): "index \(scan.built.qualifiedName)"
        }
    }
}

/// Chooses the plan of a query: the one place where an access path is picked.
enum QueryPlanner {
    /// The plan for `query` in `transaction`: the ranges of the index that bounds the most key
    /// paths by equality (``IndexChoice``), or a scan of the kind. A kind whose
    /// `valueForUndefinedKey` hook gives values no index holds is always scanned.
    ///
    /// An index's candidates are a superset of the results (entries re-checked, the unknown
    /// bucket, `[c]` on a folded index), so the whole predicate stays the residual unless every
    /// conjunct is one of the index's conditions, each exact, and no entry of its ranges needs a
    /// re-check. They come in the query's order when the index's key order is it
    /// (``IndexChoice/mayGiveOrder(of:)``, one sort key path at most; descending reads it backward)
    /// and its entries allow it (``IndexScan/survey(in:sortKeys:sortOffset:wantsExact:)``, which
    /// reads no entry of the ranges); else unordered.
    static func plan(for query: RecordQuery, in transaction: ReadTransaction) throws -> QueryPlan {
        let residual = query.predicate == .true ? nil : query.predicate
        guard try transaction.effectiveKind(named: query.kind)?.valueForUndefinedKey == nil,
              let choice = try IndexChoice.best(for: query, in: transaction) else {
            return QueryPlan(access: .scan(KindScan(kind: query.kind)), residual: residual, order: .sorted([]))
        }
        let conjuncts = IndexChoice.conjuncts(of: query.predicate)
        let mayBeExact = IndexChoice.conditions(of: query).count == conjuncts.count && choice.used.count == conjuncts.count
            && choice.used.allSatisfy(\.isExact)
        let mayBeOrdered = choice.mayGiveOrder(of: query) && query.sort.count <= 1
        var sortOffset: Int?
        if mayBeOrdered, !query.sort.isEmpty, let prefix = choice.prefix {
            var bytes: [UInt8] = []
            for value in prefix { IndexKeyEncoding.append(value, folded: choice.scan.built.index.isFolded, to: &bytes) }
            sortOffset = bytes.count
        }
        var (exact, ordered) = (false, false)
        if mayBeExact || mayBeOrdered {
            let sortKeys = mayBeOrdered ? query.sort.enumerated().map { IndexScan.SortKey(position: choice.equalityCount + $0.offset, strings: $0.element.strings) } : []
            let survey = try choice.scan.survey(in: transaction, sortKeys: sortKeys, sortOffset: sortOffset, wantsExact: mayBeExact)
            exact = mayBeExact && survey.exact
            ordered = mayBeOrdered && survey.orderedKeys == sortKeys.count
        }
        var scan = choice.scan
        scan.reverse = ordered && query.sort.first?.ascending == false
        return QueryPlan(access: .index(scan), residual: exact ? nil : residual, order: ordered ? .sorted(query.sort) : .unordered)
    }
}

/// What ``ReadTransaction/explain(_:)`` tells of a query's plan.
///
/// Its description is one line: `scan item` when the query reads every record of the kind, and
/// `index item.feed` (`index item.feed,published` for a compound index) when it reads an index's
/// ranges.
public struct QueryExplanation: Sendable, Hashable, CustomStringConvertible {
    /// The line: `scan KIND`, or `index KIND.NAME` (the key paths joined by commas).
    public let description: String

    init(_ plan: QueryPlan) {
        description = plan.description
    }
}
