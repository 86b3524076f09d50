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
        let ref = try M.ref(id: id)
        // Read once; only a UUID id not found is looked up again, in the other case.
        if let model = try fetch(type, ref: ref) { return model }
        return try ref.otherUUIDSpelling.flatMap { try fetch(type, ref: $0) }
    }

    /// The model stored under `ref`, or nil.
    /// - Throws: ``ModelError/Code/wrongKind`` when `ref` is not of `M`'s kind, or a decoding
    ///   ``ModelError``.
    public func fetch<M: StoredModel>(_ type: M.Type, ref: RecordRef) throws -> M? {
        try M.checkKind(of: ref)
        guard let values = try record(ref) else { return nil }
        return try Self.model(type, from: values, ref: ref)
    }

    /// Every model of `M`'s kind, in id order.
    /// - Throws: ``ModelDecodingErrors`` listing every record that does not decode (each a
    ///   ``ModelError`` naming the record and key path), when any does not.
    public func fetchAll<M: StoredModel>(_ type: M.Type) throws -> [M] {
        var models: [M] = []
        var failures: [ModelError] = []
        try forEachRecord(ofKind: M.kind) { record in
            do {
                models.append(try Self.model(type, from: record.values, ref: record.ref))
            } catch {
                failures.append(ModelError.decodingFailure(error, of: record.ref))
            }
            return true
        }
        if !failures.isEmpty { throw ModelDecodingErrors(modelType: "\(M.self)", errors: failures, decodedCount: models.count) }
        return models
    }

    /// The model of the record `ref` holding `values` (under older key names, or lacking keys
    /// that have defaults: ``StoredModel/upgraded(_:)``). A record without an `id` key (one written by
    /// key-value coding rather than by the encoder) takes its id from `ref`; one whose `id` key
    /// names another record is an error, since saving that model would write the other record.
    static func model<M: StoredModel>(_ type: M.Type, from values: [String: Value], ref: RecordRef) throws -> M {
        let values = M.upgraded(values)
        do {
            let model: M
            do {
                model = try ValueDecoder().decode(type, from: values)
            } catch {
                guard values[M.idKey] == nil, (error as? ModelError)?.isMissing(M.idKey) == true,
                      let withID = try Self.model(type, from: values, takingID: ref.id) else { throw error }
                model = withID
            }
            guard ref.isID(of: model.id) else {
                throw ModelError(
                    code: .invalidValue, message: "holds the id \(model.id), but the record's id is \(ref.id)", keyPath: M.idKey)
            }
            return model
        } catch {
            throw ModelError.attributing(error, to: ref)
        }
    }
}

extension ReadTransaction {
    /// The model of `values` with `id` added under the `id` key, as a string or (for integer ids)
    /// an int; nil when neither is of the id's type. Another failure is thrown.
    private static func model<M: StoredModel>(_ type: M.Type, from values: [String: Value], takingID id: String) throws -> M? {
        var values = values
        for candidate in [Value.string(id), Int64(id).map(Value.int)].compactMap({ $0 }) {
            values[M.idKey] = candidate
            do {
                return try ValueDecoder().decode(type, from: values)
            } catch {
                if (error as? ModelError)?.keyPath != M.idKey { throw error }
            }
        }
        return nil
    }
}

extension ModelError {
    /// Whether this is the error of a missing top-level `key`.
    func isMissing(_ key: String) -> Bool { code == .missingKey && keyPath == key }
}
