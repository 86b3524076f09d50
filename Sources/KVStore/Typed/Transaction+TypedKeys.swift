/// Typed get and set of one property of a stored model, by Swift key path (bound to its record
/// key by ``StoredModel/recordKeys``).
extension ReadTransaction {
    /// The value of the model's property at `keyPath`, read from its record key alone (the rest of
    /// the record is not decoded); nil when the record does not hold the key, nor an older name of
    /// it, and the key has no default (``StoredModel/keyAliases``, ``StoredModel/defaultValues``).
    ///
    /// ```swift
    /// let name = try txn.value(of: Contact.self, id: "1", \.name)   // String?
    /// ```
    /// - Throws: ``ModelError`` `unknownKeyPath` (not in `recordKeys`) or a decoding error naming
    ///   the key (`contact/1 name: expected a string, found integer 42`);
    ///   ``KeyValueCodingError/Code/recordNotFound``.
    public func value<M: StoredModel, V: Decodable>(of type: M.Type, id: M.ID, _ keyPath: KeyPath<M, V>) throws -> V? {
        let key = try M.recordKey(for: keyPath)
        let ref = try resolvingUUIDSpelling(M.ref(id: id))
        guard let value = try value(forKeyPath: key, of: ref) ?? M.upgradedValue(forKey: key, in: self, of: ref) else { return nil }
        return try Self.decode(V.self, from: value, key: key, ref: ref)
    }

    static func decode<V: Decodable>(_ type: V.Type, from value: Value, key: String, ref: RecordRef) throws -> V {
        do {
            return try ValueDecoder().decode(type, from: value)
        } catch let error as ModelError {
            throw error.nested(under: key).attributed(to: ref)
        }
    }
}

extension WriteTransaction {
    /// Sets the model's property at `keyPath` in its record, through key-value coding (so the
    /// kind's rules, the journal and observers apply; an equal value writes nothing). A nil
    /// optional removes the key, as ``WriteTransaction/removeValue(forKeyPath:of:)`` does (a nil
    /// optional is an absent key, so the nil-for-scalar hook is not consulted).
    ///
    /// ```swift
    /// try txn.set(Contact.self, id: "1", \.email, to: "ada@example.com")
    /// ```
    /// - Throws: ``ModelError`` `unknownKeyPath` or an encoding error; what ``setValue(_:forKeyPath:of:)`` throws.
    public func set<M: StoredModel, V: Encodable>(_ type: M.Type, id: M.ID, _ keyPath: KeyPath<M, V>, to value: V) throws {
        let key = try M.recordKey(for: keyPath)
        let ref = try resolvingUUIDSpelling(M.ref(id: id))
        let encoded: Value
        do {
            encoded = try ValueEncoder().encode(value)
        } catch let error as ModelError {
            throw error.nested(under: key).attributed(to: ref)
        }
        if encoded.isNull {
            try removeValue(forKeyPath: key, of: ref)
        } else {
            try setValue(encoded, forKeyPath: key, of: ref)
        }
    }
}
