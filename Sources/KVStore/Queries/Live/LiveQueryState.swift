/// What a live query keeps between commits: every record of the kind that matches, in the query's
/// order (``RankedRows``), with its sort values; for each record of the kind, the other records
/// its evaluation read through references; and the current page, decoded.
///
/// A batch of journal entries is applied by evaluating again only the records it touched: those
/// of the query's kind it names, and those whose evaluation read a record it names (so
/// `customer.city == "Oslo"` follows the customer). The new page is compared with the old one
/// (``ResultsDifference``); only the records of the page that changed are decoded again.
final class LiveQueryState {
    let query: RecordQuery
    private let order: ResultOrder
    private var rows: RankedRows
    /// The matches' sort entries, by id.
    private var matches: [String: SortEntry] = [:]
    /// For each record of the kind whose evaluation read other records: those records.
    private var reads: [String: Set<RecordRef>] = [:]
    /// For each record read through a reference: the ids of the records of the kind that read it.
    private var readers: [RecordRef: Set<String>] = [:]
    /// The page: its records, in order.
    private(set) var page: [Record] = []

    /// The state of `query` in `transaction`: every record of the kind evaluated.
    init(_ query: RecordQuery, in transaction: ReadTransaction) throws {
        try query.validate()
        self.query = query
        order = ResultOrder(query.sort)
        rows = RankedRows(order: order, sorted: [])
        try evaluateAll(in: transaction)
    }

    /// The ids of the page, in order.
    var pageIDs: [String] { page.map(\.ref.id) }

    /// Evaluates every record of the kind and makes the page, forgetting what was kept.
    /// - Returns: the difference from the page before (every row both hold counts as updated:
    ///   which changed is unknown).
    @discardableResult
    func evaluateAll(in transaction: ReadTransaction) throws -> ResultsDifference {
        let previous = pageIDs
        (matches, reads, readers) = ([:], [:], [:])
        let evaluation = try Evaluation(query, order: order, in: transaction)
        var sorted: [SortEntry] = []
        try KindScan(kind: query.kind).forEachCandidate(in: transaction) { candidate in
            try transaction.withCandidate(candidate, as: evaluation.current, loading: true) {
                if let entry = try evaluation.evaluate() { sorted.append(entry) }
                noteReads(evaluation)
            }
            return true
        }
        sorted.sort(by: order.precedes)
        for entry in sorted { matches[entry.ref.id] = entry }
        rows = RankedRows(order: order, sorted: sorted)
        let ids = rows.refs(offset: query.offset, limit: query.limit)
        page = try ids.map { try Self.decode($0, in: transaction) }
        return ResultsDifference(from: previous, to: pageIDs, changed: Set(previous))
    }

    /// Applies `entries` (read in `transaction`): evaluates the records they touch again and
    /// makes the new page. Nil when the page did not change.
    func apply(_ entries: [JournalEntry], in transaction: ReadTransaction) throws -> (previous: [String], ResultsDifference)? {
        let touched = touchedIDs(entries)
        guard !touched.isEmpty else { return nil }
        let evaluation = try Evaluation(query, order: order, in: transaction)
        for id in touched { try evaluate(id, evaluation, in: transaction) }
        let previous = pageIDs
        let refs = rows.refs(offset: query.offset, limit: query.limit)
        let difference = ResultsDifference(from: previous, to: refs.map(\.id), changed: touched)
        if difference.isEmpty { return nil }
        var kept: [String: Record] = [:]
        for record in page where !touched.contains(record.ref.id) { kept[record.ref.id] = record }
        page = try refs.map { try kept[$0.id] ?? Self.decode($0, in: transaction) }
        return (previous, difference)
    }

    /// The ids of the records of the kind that `entries` may have changed the evaluation of.
    private func touchedIDs(_ entries: [JournalEntry]) -> Set<String> {
        var touched = Set<String>()
        for entry in entries {
            if entry.ref.kind == query.kind { touched.insert(entry.ref.id) }
            if let ids = readers[entry.ref] { touched.formUnion(ids) }
        }
        return touched
    }

    /// Evaluates record `id` of the kind again (it may have been inserted or deleted).
    private func evaluate(_ id: String, _ evaluation: Evaluation, in transaction: ReadTransaction) throws {
        if let old = matches.removeValue(forKey: id) { rows.remove(old) }
        forgetReads(of: id)
        let ref = RecordRef(storedKind: query.kind, id: id)
        try transaction.withRecordBytes(ref) { bytes in
            guard let bytes else { return }
            evaluation.current.set(ref, bytes: bytes)
            if let entry = try evaluation.evaluate() {
                matches[id] = entry
                rows.insert(entry)
            }
            noteReads(evaluation)
        }
    }

    /// Keeps the other records the current candidate's evaluation read.
    private func noteReads(_ evaluation: Evaluation) {
        guard !evaluation.reads.refs.isEmpty else { return }
        let id = evaluation.current.ref.id
        reads[id] = evaluation.reads.refs
        for ref in evaluation.reads.refs { readers[ref, default: []].insert(id) }
    }

    private func forgetReads(of id: String) {
        guard let refs = reads.removeValue(forKey: id) else { return }
        for ref in refs {
            readers[ref]?.remove(id)
            if readers[ref]?.isEmpty == true { readers[ref] = nil }
        }
    }

    private static func decode(_ ref: RecordRef, in transaction: ReadTransaction) throws -> Record {
        try transaction.withRecordBytes(ref) { bytes in
            Record(ref: ref, values: try transaction.decodeRecord(try transaction.existing(bytes, ref), ref: ref))
        }
    }

    /// The predicate and sort keys of one record after another, in one transaction, noting the
    /// other records each evaluation reads.
    private struct Evaluation {
        let current: CurrentCandidate
        let reads = OtherRecordReads()
        let values: CandidateValues
        let filter: ResidualFilter?
        let order: ResultOrder

        init(_ query: RecordQuery, order: ResultOrder, in transaction: ReadTransaction) throws {
            current = try CurrentCandidate(kind: query.kind, in: transaction)
            values = CandidateValues(transaction: transaction, current: current, statistics: QueryStatistics(), reads: reads)
            filter = query.predicate == .true ? nil : ResidualFilter(query.predicate, variables: query.variables, values: values)
            self.order = order
        }

        /// The current candidate's sort entry when it matches; nil when not.
        func evaluate() throws -> SortEntry? {
            reads.refs.removeAll(keepingCapacity: true)
            if let filter, try !filter.holds() { return nil }
            return SortEntry(ref: current.ref, values: try order.sortValues(values))
        }
    }
}
