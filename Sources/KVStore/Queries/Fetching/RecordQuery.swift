/// A question about the records of one kind: which ones (a predicate), in what order (sort
/// descriptors), and which page of them (offset and limit).
///
/// ```swift
/// // The 50 newest unread items of a feed, third page.
/// let page = RecordQuery(
///     kind: "item",
///     where: try KeyPathPredicate("feed == $feed AND read == NO"),
///     variables: ["feed": .reference(swiftFeed)],
///     sortedBy: [try KeyPathSort(parsing: "published:desc")],
///     limit: 50, offset: 100
/// )
/// let items = try store.read { txn in try txn.fetch(page) }
/// ```
///
/// The results are the records of ``kind`` for which ``predicate`` holds (see <doc:PredicateLanguage>),
/// ordered by ``sort`` and then by id (ascending, by UTF-8 bytes), so that every order is total and
/// pages never overlap or skip; without sort descriptors they come in id order. Then ``offset``
/// results are skipped and at most ``limit`` are given. See <doc:Querying>.
public struct RecordQuery: Sendable, Hashable {
    /// The kind whose records are queried.
    public var kind: String
    /// The condition a record meets to be a result; ``KeyPathPredicate/true`` for every record.
    public var predicate: KeyPathPredicate
    /// The values of the predicate's `$variables`.
    public var variables: [String: Value]
    /// The order of the results, first descriptor first; ties (and an empty list) go by id.
    public var sort: [KeyPathSort]
    /// The most results given; nil for all of them.
    public var limit: Int?
    /// The results skipped before the first one given.
    public var offset: Int

    /// A query of the records of `kind`.
    /// - Parameters:
    ///   - kind: the kind queried.
    ///   - predicate: the condition a result meets; every record by default.
    ///   - variables: the values of the predicate's `$variables`.
    ///   - sort: the order of the results, then id order.
    ///   - limit: the most results given; nil for all of them.
    ///   - offset: the results skipped first.
    public init(
        kind: String,
        where predicate: KeyPathPredicate = .true,
        variables: [String: Value] = [:],
        sortedBy sort: [KeyPathSort] = [],
        limit: Int? = nil,
        offset: Int = 0
    ) {
        self.kind = kind
        self.predicate = predicate
        self.variables = variables
        self.sort = sort
        self.limit = limit
        self.offset = offset
    }

    /// Checks what a query's execution relies on: a valid kind, a limit and an offset that are not
    /// negative, and a value for every `$variable` the predicate uses.
    func validate() throws {
        try RecordRef.validate(kind: kind)
        if let limit, limit < 0 { throw RecordQueryError(.invalidLimit, "the limit is \(limit); it must be 0 or more") }
        if offset < 0 { throw RecordQueryError(.invalidOffset, "the offset is \(offset); it must be 0 or more") }
        if let name = predicate.unboundVariable(Set(variables.keys)) {
            throw PredicateEvaluator<TransactionSource>.unbound(name)
        }
    }

    /// The number of leading results the query needs, offset included: nil for all of them.
    var neededCount: Int? {
        guard let limit else { return nil }
        let (sum, overflow) = offset.addingReportingOverflow(limit)
        return overflow ? nil : sum
    }
}
