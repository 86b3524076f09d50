/// Counting, key-path values and group-by over the records a query matches (<doc:Querying>).
extension ReadTransaction {
    /// The number of records `query` matches, its offset and limit applied; its sort is ignored.
    ///
    /// ```swift
    /// let unread = try KeyPathPredicate("feed == $feed AND read == NO")
    /// try txn.count(matching: RecordQuery(kind: "item", where: unread, variables: ["feed": .reference(feed)]))
    /// ```
    ///
    /// Records are read only as far as the predicate needs (no record at all for
    /// `TRUEPREDICATE`, which reads the kind's counter), none is decoded, and a limit stops the
    /// count early.
    /// - Throws: as ``fetch(_:keys:)``.
    public func count(matching query: RecordQuery) throws -> Int {
        try executor(for: query, statistics: QueryStatistics()).count()
    }

    /// The number of records of `kind` that satisfy `predicate`: ``count(matching:)`` of
    /// `RecordQuery(kind: kind, where: predicate, variables: variables)`.
    public func count(ofKind kind: String, where predicate: KeyPathPredicate, variables: [String: Value] = [:]) throws -> Int {
        try count(matching: RecordQuery(kind: kind, where: predicate, variables: variables))
    }

    /// The value at a key path over the records `query` matches, in its order: a collection operator
    /// (`@count`, `@sum.amount`, `@avg.amount`, `@max.published`, `@distinctUnionOfObjects.city`…)
    /// or a plain key path, which gives each record's value (`null` where missing), as
    /// ``value(forKeyPath:ofKind:)`` does over every record of a kind.
    ///
    /// ```swift
    /// let open = RecordQuery(kind: "invoice", where: try KeyPathPredicate("paid == NO"))
    /// try txn.value(forKeyPath: "@sum.amount", matching: open)   // .int(245)
    /// try txn.value(forKeyPath: "customer.name", matching: open)  // ["Ada", "Grace"]
    /// ```
    ///
    /// The operators of ``value(forKeyPath:ofKind:)`` that stream (`@count`, `@sum`, `@avg`, `@max`,
    /// `@min`, `@unionOfObjects`, `@distinctUnionOfObjects`) and plain key paths read only the keys
    /// they name from each match; the union-of-arrays operators collect the matches first.
    /// - Throws: as ``fetch(_:keys:)``, and ``KeyValueCodingError`` as
    ///   ``value(forKeyPath:ofKind:)`` throws it (a malformed path, a sum of strings).
    public func value(forKeyPath keyPath: String, matching query: RecordQuery) throws -> Value? {
        let path = try KeyValuePath(keyPath)
        let statistics = QueryStatistics()
        let executor = try executor(for: query, statistics: statistics)
        guard case .operator(let op)? = path.components.first else {
            return .array(try values(at: path.components[...], of: executor, fullPath: path).map { $0 ?? .null })
        }
        switch op {
        case .count:
            return .int(Int64(try executor.count()))
        case .sum, .avg, .max, .min, .unionOfObjects, .distinctUnionOfObjects:
            if path.components.count == 2, case .key(let key) = path.components[1], let total = try executor.intTotal(op, of: key) {
                return total
            }
            return try op.combine(try values(at: path.components.dropFirst(), of: executor, fullPath: path), keyPath: path.description)
        case .unionOfArrays, .distinctUnionOfArrays, .distinctUnionOfSets:
            var refs: [Value] = []
            try executor.forEachResult { current in
                refs.append(.reference(current.ref))
                return true
            }
            return try KeyPathEvaluator.value(forKeyPath: path, ofCollection: refs, source: TransactionSource(transaction: self))
        }
    }

    /// The distinct values of a key path over the records `query` matches, each with the number of
    /// matches that have it: a group-by. Records without a value count under `null`.
    ///
    /// ```swift
    /// let unread = RecordQuery(kind: "item", where: try KeyPathPredicate("read == NO"))
    /// for (feed, count) in try txn.distinctValues(forKeyPath: "feed.title", matching: unread) {
    ///     print(feed, count)   // unread items per feed
    /// }
    /// ```
    ///
    /// Values are grouped by equality of ``Value`` (an array is one value; `1` and `1.0` are
    /// distinct) and listed in ascending ``KeyPathSort`` order (`null` first), values that order
    /// alike in the order of their first match. The query's offset and limit apply to the matches.
    /// - Throws: as ``value(forKeyPath:matching:)``.
    public func distinctValues(forKeyPath keyPath: String, matching query: RecordQuery) throws -> [(value: Value, count: Int)] {
        let path = try KeyValuePath(keyPath)
        var counts: [Value: Int] = [:]
        var firstSeen: [Value] = []
        for value in try values(at: path.components[...], of: executor(for: query, statistics: QueryStatistics()), fullPath: path) {
            let value = value ?? .null
            if counts[value] == nil { firstSeen.append(value) }
            counts[value, default: 0] += 1
        }
        let ordered = firstSeen.enumerated().sorted { a, b in
            switch SortValueOrder.compare(a.element, b.element, strings: .unicodeScalars) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: a.offset < b.offset
            }
        }
        return ordered.map { ($0.element, counts[$0.element] ?? 0) }
    }

    /// The value at `path` (a slice of `fullPath`) of each result, in order; nil where missing.
    private func values(
        at path: ArraySlice<KeyValuePath.Component>, of executor: QueryExecutor, fullPath: KeyValuePath
    ) throws -> [Value?] {
        var values: [Value?] = []
        try executor.forEachResult { current in
            // From the result's stand-in, which its source reads in place; an empty path (`@max`
            // alone) gives the record itself.
            values.append(path.isEmpty
                ? .reference(current.ref)
                : try KeyPathEvaluator.value(at: path, in: .reference(current.standIn), source: executor.values(current), fullPath: fullPath))
            return true
        }
        return values
    }
}
