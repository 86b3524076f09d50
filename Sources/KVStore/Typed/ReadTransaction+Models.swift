/// Reading models (``StoredModel``) from their records.
extension ReadTransaction {
    /// The model stored under `id`, or nil when there is no such record.
    ///
    /// ```swift
    /// let ada = try txn.fetch(Contact.self, id: "1")
    /// ```
    /// - Throws: ``ModelError`` naming the record and key path of a value that does not decode
    ///   (`contact/1 email: expected a string, found integer 42`).
    public func fetch<M: StoredModel>(_ type: M.Type, id: M.ID) throws -> M? {
        try fetch(type, ref: M.ref(id: id))
    }

    /// The model stored under `ref`, or nil. - Throws: ``ModelError/Code/wrongKind`` when `ref`
    /// is not of `M`'s kind, or a decoding ``ModelError``.
    public func fetch<M: StoredModel>(_ type: M.Type, ref: RecordRef) throws -> M? {
        try M.checkKind(of: ref)
        guard let values = try record(ref) else { return nil }
        return try Self.model(type, from: values, ref: ref)
    }

    /// Every model of `M`'s kind, in id order.
    public func fetchAll<M: StoredModel>(_ type: M.Type) throws -> [M] {
        var models: [M] = []
        try forEachRecord(ofKind: M.kind) { record in
            models.append(try Self.model(type, from: record.values, ref: record.ref))
            return true
        }
        return models
    }

    static func model<M: Decodable>(_ type: M.Type, from values: [String: Value], ref: RecordRef) throws -> M {
        do {
            return try ValueDecoder().decode(type, from: values)
        } catch {
            throw ModelError.attributing(error, to: ref)
        }
    }
}
