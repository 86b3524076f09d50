/// Fetching the records a query matches (<doc:Querying>).
extension ReadTransaction {
    /// The records `query` matches, in its order, after its offset, at most its limit.
    ///
    /// ```swift
    /// let unread = RecordQuery(
    ///     kind: "item", where: try KeyPathPredicate("read == NO"),
    ///     sortedBy: [try KeyPathSort(parsing: "published:desc")], limit: 50
    /// )
    /// let page = try store.read { txn in try txn.fetch(unread) }
    /// let titles = try store.read { txn in try txn.fetch(unread, keys: ["title"]) }  // only titles
    /// ```
    ///
    /// A record's predicate and sort keys are read from its encoding without decoding the rest;
    /// only results are decoded. Without sort descriptors, the scan stops once `limit` results are
    /// found. See ``forEachRecord(matching:keys:_:)`` to handle results one at a time.
    /// - Parameters:
    ///   - query: which records, in what order, which page.
    ///   - keys: when given, each result holds only these keys' stored values (those the record
    ///     has), and only they are decoded: a projection.
    /// - Throws: ``RecordRefError`` for an invalid kind, ``RecordQueryError`` for a negative limit
    ///   or offset, ``KeyPathPredicateError`` for an unbound `$variable` (all before anything is
    ///   read) or a bad `MATCHES` pattern, and what a kind's `valueForUndefinedKey` hook throws.
    public func fetch(_ query: RecordQuery, keys: [String]? = nil) throws -> [Record] {
        var records: [Record] = []
        try forEachRecord(matching: query, keys: keys) { record in
            records.append(record)
            return true
        }
        return records
    }

    /// Calls `body` with each record `query` matches, in its order, after its offset, at most its
    /// limit, decoding one at a time; return false from `body` to stop.
    ///
    /// ```swift
    /// try store.read { txn in
    ///     try txn.forEachRecord(matching: RecordQuery(kind: "item", where: unread)) { item in
    ///         print(item.ref.id, item.values["title"] ?? .null)
    ///         return true
    ///     }
    /// }
    /// ```
    ///
    /// Without sort descriptors, records stream in id order as the scan finds them, in constant
    /// memory. With sort descriptors, the matches' sort values are held (offset + limit of them
    /// when there is a limit) and the records are decoded once ordered.
    /// - Parameters:
    ///   - query: which records, in what order, which page.
    ///   - keys: when given, a projection: see ``fetch(_:keys:)``.
    ///   - body: called with each result; returns whether to go on.
    /// - Throws: as ``fetch(_:keys:)``, and what `body` throws.
    public func forEachRecord(matching query: RecordQuery, keys: [String]? = nil, _ body: (Record) throws -> Bool) throws {
        try forEachRecord(matching: query, keys: keys, statistics: QueryStatistics(), body)
    }

    /// How `query` would find its records: one line, `scan KIND` (every record of the kind is read).
    ///
    /// ```swift
    /// try store.read { try $0.explain(RecordQuery(kind: "item")) }.description  // "scan item"
    /// ```
    /// - Throws: as ``fetch(_:keys:)`` does before reading anything.
    public func explain(_ query: RecordQuery) throws -> QueryExplanation {
        QueryExplanation(try executor(for: query, statistics: QueryStatistics()).plan)
    }

    /// ``forEachRecord(matching:keys:_:)``, counting its work in `statistics`.
    func forEachRecord(
        matching query: RecordQuery, keys: [String]?, statistics: QueryStatistics, _ body: (Record) throws -> Bool
    ) throws {
        try executor(for: query, statistics: statistics).forEachResult { current in
            try body(try result(current.ref, current.bytes, keys: keys, statistics: statistics))
        }
    }

    /// The executor of `query`, after checking it and choosing its plan.
    func executor(for query: RecordQuery, statistics: QueryStatistics) throws -> QueryExecutor {
        try query.validate()
        return QueryExecutor(transaction: self, query: query, plan: try QueryPlanner.plan(for: query, in: self), statistics: statistics)
    }

    /// A result as given: the record decoded, or only `keys` of it.
    private func result(_ ref: RecordRef, _ bytes: UnsafeRawBufferPointer, keys: [String]?, statistics: QueryStatistics) throws -> Record {
        guard let keys else {
            statistics.recordsDecoded += 1
            return Record(ref: ref, values: try decodeRecord(bytes, ref: ref))
        }
        var values: [String: Value] = [:]
        for key in keys {
            statistics.keysProjected += 1
            if let value = try storedValue(forKey: key, in: bytes, of: ref) { values[UTF8Text.nfc(key)] = value }
        }
        return Record(ref: ref, values: values)
    }
}
