/// Results of candidates that come ordered by the leading sort descriptors only
/// (``QueryPlan/Order/grouped(_:leading:)``): an index gives the first descriptors' order, and
/// the executor sorts each run of matches that tie on them — by the other descriptors, then by id —
/// as it comes. Once the runs sorted hold `offset + limit` matches, the next run cannot change the
/// page: reading stops there, so a page costs the runs it spans rather than every candidate.
extension QueryExecutor {
    func sortGroups(leading: Int, _ current: CurrentCandidate, _ body: (CurrentCandidate) throws -> Bool) throws {
        let (transaction, statistics) = (self.transaction, self.statistics)
        let filter = residualFilter(current)
        let order = ResultOrder(query.sort)
        let values = values(current)
        let needed = query.neededCount ?? .max
        var kept: [SortEntry] = []
        // The current run, cut to the matches the page can still take.
        var run = BoundedHeap<SortEntry>(capacity: needed, precedes: order.precedes)
        var runValues: [Value?]?
        try source.forEachCandidate(in: transaction) { candidate in
            statistics.candidates += 1
            return try transaction.withCandidate(candidate, as: current, loading: true) {
                if let filter, try !filter.holds() { return true }
                let entry = SortEntry(ref: current.ref, values: try order.sortValues(values))
                if let previous = runValues, !order.ties(previous, entry.values, onFirst: leading) {
                    kept += run.sorted()
                    guard kept.count < needed else { return false }
                    run = BoundedHeap(capacity: needed - kept.count, precedes: order.precedes)
                }
                runValues = entry.values
                run.insert(entry)
                return true
            }
        }
        if kept.count < needed { kept += run.sorted() }
        try give(kept, current, body)
    }
}
