/// One-call forms of the typed API: each runs in its own transaction (a write in its own commit).
extension Store {
    /// See ``WriteTransaction/insert(_:)``.
    public func insert<M: StoredModel>(_ model: M) throws {
        try write { try $0.insert(model) }
    }

    /// See ``WriteTransaction/save(_:replacing:)``.
    @discardableResult
    public func save<M: StoredModel>(_ model: M, replacing scope: SaveReplacement = .modelKeys) throws -> [String: ValueChange] {
        try write { try $0.save(model, replacing: scope) }
    }

    /// See ``WriteTransaction/delete(_:id:)``.
    @discardableResult
    public func delete<M: StoredModel>(_ type: M.Type, id: M.ID) throws -> Bool {
        try write { try $0.delete(type, id: id) }
    }

    /// See ``ReadTransaction/fetch(_:id:)``.
    public func fetch<M: StoredModel>(_ type: M.Type, id: M.ID) throws -> M? {
        try read { try $0.fetch(type, id: id) }
    }

    /// See ``ReadTransaction/fetchAll(_:)``.
    public func fetchAll<M: StoredModel>(_ type: M.Type) throws -> [M] {
        try read { try $0.fetchAll(type) }
    }

    /// See ``ReadTransaction/value(of:id:_:)``.
    public func value<M: StoredModel, V: Decodable>(of type: M.Type, id: M.ID, _ keyPath: KeyPath<M, V>) throws -> V? {
        try read { try $0.value(of: type, id: id, keyPath) }
    }

    /// See ``WriteTransaction/set(_:id:_:to:)``.
    public func set<M: StoredModel, V: Encodable>(_ type: M.Type, id: M.ID, _ keyPath: KeyPath<M, V>, to value: V) throws {
        try write { try $0.set(type, id: id, keyPath, to: value) }
    }

    /// See ``WriteTransaction/update(_:from:keys:insertingIfAbsent:)-(_,[String:Value],_,_)``: one commit.
    @discardableResult
    public func update(_ ref: RecordRef, from values: [String: Value], keys: Set<String>? = nil, insertingIfAbsent: Bool = false) throws -> [String: ValueChange] {
        try write { try $0.update(ref, from: values, keys: keys, insertingIfAbsent: insertingIfAbsent) }
    }

    /// See ``WriteTransaction/update(_:from:keys:insertingIfAbsent:)-(_,Record,_,_)``: one commit.
    @discardableResult
    public func update(_ ref: RecordRef, from record: Record, keys: Set<String>? = nil, insertingIfAbsent: Bool = false) throws -> [String: ValueChange] {
        try write { try $0.update(ref, from: record, keys: keys, insertingIfAbsent: insertingIfAbsent) }
    }

    /// See ``WriteTransaction/update(_:from:keys:insertingIfAbsent:)-(_,M,_,_)``: one commit.
    @discardableResult
    public func update<M: StoredModel>(_ ref: RecordRef, from model: M, keys: Set<String>? = nil, insertingIfAbsent: Bool = false) throws -> [String: ValueChange] {
        try write { try $0.update(ref, from: model, keys: keys, insertingIfAbsent: insertingIfAbsent) }
    }

    /// See ``WriteTransaction/merge(_:from:policy:)``: one commit.
    @discardableResult
    public func merge(_ ref: RecordRef, from remote: StampedRecord, policy: MergePolicy = .lastWriterWins) throws -> [String: ValueChange] {
        try write { try $0.merge(ref, from: remote, policy: policy) }
    }

    /// See ``ReadTransaction/stampedRecord(_:)``.
    public func stampedRecord(_ ref: RecordRef) throws -> StampedRecord? {
        try read { try $0.stampedRecord(ref) }
    }
}
