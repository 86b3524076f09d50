/// One-call forms of the query API, each in its own read transaction (<doc:Querying>). Several
/// reads that must agree (a count and a page) belong in one ``Store/read(_:)-2zm6d``.
extension Store {
    /// See ``ReadTransaction/fetch(_:keys:)``.
    public func fetch(_ query: RecordQuery, keys: [String]? = nil) throws -> [Record] {
        try read { try $0.fetch(query, keys: keys) }
    }

    /// See ``ReadTransaction/count(matching:)``.
    public func count(matching query: RecordQuery) throws -> Int {
        try read { try $0.count(matching: query) }
    }

    /// See ``ReadTransaction/count(ofKind:where:variables:)``.
    public func count(ofKind kind: String, where predicate: KeyPathPredicate, variables: [String: Value] = [:]) throws -> Int {
        try read { try $0.count(ofKind: kind, where: predicate, variables: variables) }
    }

    /// See ``ReadTransaction/value(forKeyPath:matching:)``.
    public func value(forKeyPath keyPath: String, matching query: RecordQuery) throws -> Value? {
        try read { try $0.value(forKeyPath: keyPath, matching: query) }
    }

    /// See ``ReadTransaction/distinctValues(forKeyPath:matching:)``.
    public func distinctValues(forKeyPath keyPath: String, matching query: RecordQuery) throws -> [(value: Value, count: Int)] {
        try read { try $0.distinctValues(forKeyPath: keyPath, matching: query) }
    }

    /// See ``ReadTransaction/records(ofKind:from:to:reverse:limit:)``.
    public func records(
        ofKind kind: String, from startID: String?, to endID: String?, reverse: Bool = false, limit: Int? = nil
    ) throws -> [Record] {
        try read { try $0.records(ofKind: kind, from: startID, to: endID, reverse: reverse, limit: limit) }
    }

    /// See ``ReadTransaction/explain(_:)``.
    public func explain(_ query: RecordQuery) throws -> QueryExplanation {
        try read { try $0.explain(query) }
    }
}
