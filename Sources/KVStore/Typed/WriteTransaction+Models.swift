/// Writing models (``StoredModel``) as records, through the same hooks and journal as
/// key-value coding.
extension WriteTransaction {
    /// Inserts `model` as a new record (one `recordInserted` journal entry).
    ///
    /// ```swift
    /// try txn.insert(Contact(id: "1", name: "Ada"))
    /// ```
    /// - Throws: ``KeyValueCodingError/Code/recordExists``, an encoding ``ModelError``, or what
    ///   the kind's rules refuse (see ``insert(_:as:)``).
    public func insert<M: StoredModel>(_ model: M) throws {
        let ref = try model.ref
        try insert(Self.values(of: model, ref: ref), as: ref)
    }

    /// Inserts `model`, or makes the existing record hold exactly the model's values: each key
    /// whose value differs is set (a key the model does not encode, such as a nil optional, is
    /// removed), one journal entry per changed key; a model equal to its record writes nothing.
    ///
    /// ```swift
    /// let changes = try txn.save(contact)   // ["email": ValueChange(old: nil, new: "ada@example.com")]
    /// ```
    /// - Returns: what changed, per key (every key, with no old values, for an insertion).
    @discardableResult
    public func save<M: StoredModel>(_ model: M) throws -> [String: ValueChange] {
        let ref = try resolvingUUIDSpelling(model.ref)
        let values = try Self.values(of: model, ref: ref)
        guard try contains(ref) else { return try insertReportingChanges(values, as: ref) }
        return try update(ref, from: values)
    }

    /// Deletes the record of the model with id `id`.
    /// - Returns: whether there was one.
    @discardableResult
    public func delete<M: StoredModel>(_ type: M.Type, id: M.ID) throws -> Bool {
        let ref = try resolvingUUIDSpelling(M.ref(id: id))
        guard try contains(ref) else { return false }
        try delete(ref)
        return true
    }

    /// Inserts a record and reports each of its keys as inserted, with the value stored (the
    /// kind's rules may have converted or rewritten it).
    func insertReportingChanges(_ values: [String: Value], as ref: RecordRef) throws -> [String: ValueChange] {
        try insert(values, as: ref)
        return try existingRecord(ref).mapValues { ValueChange(old: nil, new: $0) }
    }

    static func values<M: Encodable>(of model: M, ref: RecordRef) throws -> [String: Value] {
        do {
            return try ValueEncoder().encodeRecord(model)
        } catch {
            throw ModelError.attributing(error, to: ref)
        }
    }
}
