/// Runs a ``QueryPlan`` in a transaction: takes the candidates of its access path, keeps those
/// its residual predicate holds for, puts them in the query's order and cuts the page.
///
/// - When the candidates come in the query's order (a scan and no sort descriptors), results
///   stream: the offset is skipped as they come and the access path stops at the limit.
/// - Otherwise each match's sort values are read (only the keys the descriptors name) and the
///   matches are ordered: with a limit, in a heap of offset + limit entries (the top-k); without
///   one, all of them. The records kept are then looked up again, in order.
struct QueryExecutor {
    let transaction: ReadTransaction
    let query: RecordQuery
    let plan: QueryPlan
    let statistics: QueryStatistics

    /// Calls `body` with each result in order, after the offset, at most the limit, until `body`
    /// returns false. The result is the ``CurrentCandidate``, its encoding loaded; read its keys
    /// with ``values(_:)``.
    func forEachResult(_ body: (CurrentCandidate) throws -> Bool) throws {
        if query.limit == 0 { return }
        let current = try CurrentCandidate(kind: query.kind, in: transaction)
        switch plan.order {
        case .sorted(let sort) where sort == query.sort: try stream(current, loading: true, body)
        case .grouped(let sort, let leading) where sort == query.sort: try sortGroups(leading: leading, current, body)
        default: try sort(current, body)
        }
    }

    /// The number of results, offset and limit applied: the access path's count when every
    /// candidate matches and it knows it (or the store counts them: ``QueryPlan/countedPrefix``, or
    /// the index's entries tell: ``countFromEntries()``), else the matches counted in any order (up to the limit),
    /// reading records only to filter them.
    func count() throws -> Int {
        if query.limit == 0 { return 0 }
        if plan.residual == nil, let total = try source.knownCount(in: transaction) ?? plan.knownCount(in: transaction) ?? countFromEntries() {
            let afterOffset = max(0, total - query.offset)
            return query.limit.map { min($0, afterOffset) } ?? afterOffset
        }
        var counted = 0
        try stream(try CurrentCandidate(kind: query.kind, in: transaction), loading: false) { _ in
            counted += 1
            return true
        }
        return counted
    }

    /// The source of the current result's keys, for a consumer of ``forEachResult(_:)``.
    func values(_ current: CurrentCandidate) -> CandidateValues {
        CandidateValues(transaction: transaction, current: current, statistics: statistics)
    }

    /// The plan's access path.
    var source: any CandidateSource {
        switch plan.access {
        case .scan(let scan): scan
        case .index(let scan): scan
        case .union(let union): union
        }
    }

    /// Results in the candidates' order: skips the offset, stops after the limit. `loading`: the
    /// results' encodings are needed (the filter loads them anyway).
    func stream(_ current: CurrentCandidate, loading: Bool, _ body: (CurrentCandidate) throws -> Bool) throws {
        let (transaction, statistics) = (self.transaction, self.statistics)
        let filter = residualFilter(current)
        var skip = query.offset
        var remaining = query.limit ?? .max
        var source = self.source
        if filter == nil, case .index(var scan) = plan.access {
            // Every candidate is a result: the index passes over the offset on its entries.
            (scan.passOver, skip) = (skip, 0)
            source = scan
        }
        try source.forEachCandidate(in: transaction) { candidate in
            statistics.candidates += 1
            // Every candidate is a result: the offset is skipped on the candidates alone, no
            // record looked up (what an index did not pass over).
            if filter == nil, skip > 0 {
                skip -= 1
                return true
            }
            return try transaction.withCandidate(candidate, as: current, loading: loading || filter != nil, counting: statistics) {
                if let filter, try !filter.holds() { return true }
                if skip > 0 {
                    skip -= 1
                    return true
                }
                guard try body(current) else { return false }
                remaining -= 1
                return remaining > 0
            }
        }
    }

    /// Results ordered here: the matches' sort values read, the first offset + limit kept.
    private func sort(_ current: CurrentCandidate, _ body: (CurrentCandidate) throws -> Bool) throws {
        let (transaction, statistics) = (self.transaction, self.statistics)
        let filter = residualFilter(current)
        let order = ResultOrder(query.sort)
        let values = values(current)
        var kept = BoundedHeap<SortEntry>(capacity: query.neededCount ?? .max, precedes: order.precedes)
        try source.forEachCandidate(in: transaction) { candidate in
            statistics.candidates += 1
            return try transaction.withCandidate(candidate, as: current, loading: true, counting: statistics) {
                if let filter, try !filter.holds() { return true }
                kept.insert(SortEntry(ref: current.ref, values: try order.sortValues(values)))
                return true
            }
        }
        try give(kept.sorted(), current, body)
    }

    /// Gives the kept matches after the offset, in order, each record looked up again.
    func give(_ kept: [SortEntry], _ current: CurrentCandidate, _ body: (CurrentCandidate) throws -> Bool) throws {
        for entry in kept.dropFirst(query.offset) {
            statistics.recordsLookedUp += 1
            let goOn = try transaction.withRecordBytes(entry.ref) { bytes in
                current.set(entry.ref, bytes: try transaction.existing(bytes, entry.ref))
                return try body(current)
            }
            if !goOn { return }
        }
    }

    func residualFilter(_ current: CurrentCandidate) -> ResidualFilter? {
        plan.residual.map { ResidualFilter($0.bindingScalarVariables(query.variables), variables: query.variables, values: values(current)) }
    }
}

/// A match waiting to be ordered: its reference and its values at the sort's key paths.
struct SortEntry {
    let ref: RecordRef
    let values: [Value?]
}

/// The order of a query's results: by each descriptor in turn, then by id ascending.
struct ResultOrder {
    let descriptors: [KeyPathSort]

    init(_ descriptors: [KeyPathSort]) {
        self.descriptors = descriptors
    }

    /// The current candidate's values at the descriptors' key paths, prepared for comparing.
    func sortValues(_ values: CandidateValues) throws -> [Value?] {
        try descriptors.map { descriptor in
            SortValueOrder.prepared(try values.lenientValue(at: descriptor.keyPath), for: descriptor.strings)
        }
    }

    /// Whether two matches' values tie on the first `count` descriptors.
    func ties(_ a: [Value?], _ b: [Value?], onFirst count: Int) -> Bool {
        descriptors.prefix(count).enumerated().allSatisfy { index, descriptor in
            SortValueOrder.compare(a[index], b[index], strings: descriptor.strings) == .orderedSame
        }
    }

    func precedes(_ a: SortEntry, _ b: SortEntry) -> Bool {
        for (index, descriptor) in descriptors.enumerated() {
            let order = SortValueOrder.compare(a.values[index], b.values[index], strings: descriptor.strings)
            if order != .orderedSame { return descriptor.ascending ? order == .orderedAscending : order == .orderedDescending }
        }
        return UTF8Text.precedes(a.ref.id, b.ref.id)
    }
}

extension ReadTransaction {
    /// Makes `candidate` the current one and runs `body`; when `loading` and the access path did
    /// not hand its encoding over, looks the record up first.
    func withCandidate<T>(
        _ candidate: Candidate, as current: CurrentCandidate, loading: Bool, counting statistics: QueryStatistics? = nil, _ body: () throws -> T
    ) throws -> T {
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        current.set(id: candidate.id, bytes: candidate.bytes ?? none)
        guard candidate.bytes == nil, loading else { return try body() }
        statistics?.recordsLookedUp += 1
        let ref = current.ref
        return try withRecordBytes(ref) { bytes in
            current.set(ref, bytes: try existing(bytes, ref))
            return try body()
        }
    }

    /// `bytes`, the encoding of `ref` the plan found; a plan never names a record that is not there.
    func existing(_ bytes: UnsafeRawBufferPointer?, _ ref: RecordRef) throws -> UnsafeRawBufferPointer {
        guard let bytes else {
            throw StoreError(.corrupt, "record \(ref) is named by the query's plan but is not in the store", path: store.path)
        }
        return bytes
    }
}
