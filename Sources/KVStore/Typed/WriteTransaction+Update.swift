/// Updating a record from another version of it (a server's copy, another record, a model),
/// writing only what differs and reporting exactly what changed.
extension WriteTransaction {
    /// Makes the record's `keys` hold the values they have in `values`, and returns the change of
    /// each key whose value differed.
    ///
    /// Rules, key by key (for `keys`, or when `keys` is nil for every key of either side — the
    /// record then ends up equal to `values`):
    /// - present in both with equal values: nothing is written, journaled or notified;
    /// - present in `values` only: inserted (old nil);
    /// - present in the record only, or `null` in `values`: removed (new nil);
    /// - a key absent from both: nothing.
    /// Keys of `values` not in `keys` are ignored. When the record does not exist, it is inserted
    /// with the values of `keys` (all of `values` when nil) if `insertingIfAbsent` is true — one
    /// call for a server's refresh — and is ``KeyValueCodingError/Code/recordNotFound`` otherwise.
    /// Each change goes through ``setValue(_:forKey:of:)``
    /// (or ``removeValue(forKey:of:)``), so the kind's rules and hooks apply and each changed key is
    /// one journal entry of this transaction's commit; the change reports the value stored.
    /// Keys no key path can name, keys a closed kind does not declare (and has no hook for) and
    /// values of another type than declared are refused before anything is written; a failure
    /// found later (a validator, a hook) leaves the transaction for its caller to abandon, as
    /// ``Store/update(_:from:keys:insertingIfAbsent:)-(_,[String:Value],_,_)`` does.
    ///
    /// ```swift
    /// try store.write { txn in
    ///     let changes = try txn.update(ada, from: server, keys: ["name", "email"])
    ///     for (key, change) in changes { print(key, change) }   // name "Ada" → "Ada Lovelace"
    /// }
    /// ```
    /// - Throws: ``KeyValueCodingError`` `recordNotFound`, `invalidKeyPath` (a key with `.`),
    ///   or what the kind's rules throw.
    @discardableResult
    public func update(
        _ ref: RecordRef, from values: [String: Value], keys: Set<String>? = nil, insertingIfAbsent: Bool = false
    ) throws -> [String: ValueChange] {
        if insertingIfAbsent, try !contains(ref) {
            let inserted = keys.map { keys in values.filter { keys.contains($0.key) && !$0.value.isNull } } ?? values.filter { !$0.value.isNull }
            return try insertReportingChanges(inserted, as: ref)
        }
        let current = try existingRecord(ref)
        var writes: [(key: String, old: Value?, wanted: Value?)] = []
        for key in (keys ?? Set(current.keys).union(values.keys)).sorted() {
            try Self.checkKey(key)
            let old = current[key]
            let wanted = values[key].flatMap { $0.isNull ? nil : $0 }
            if old != wanted { writes.append((key, old, wanted)) }
        }
        try checkWritable(writes.map { ($0.key, $0.wanted) }, of: ref)
        var changes: [String: ValueChange] = [:]
        for (key, old, wanted) in writes {
            if let wanted {
                try setValue(wanted, forKey: key, of: ref)
            } else {
                try removeValue(forKey: key, of: ref)
            }
            let new = try storedValue(forKey: key, of: ref)
            if new != old { changes[key] = ValueChange(old: old, new: new) }
        }
        return changes
    }

    /// Refuses, before anything is written, what the kind's rules are sure to refuse: a key a
    /// closed kind does not declare (unless its undefined-key hook takes a set), a value of another
    /// type than the key's declared one (unless validation, which may convert it, runs on set).
    private func checkWritable(_ writes: [(key: String, value: Value?)], of ref: RecordRef) throws {
        guard let kind = try effectiveKind(named: ref.kind) else { return }
        for (key, value) in writes {
            if kind.isClosed, !kind.declares(key) {
                if value == nil || kind.setValueForUndefinedKey == nil {
                    throw KeyValueCodingError.undefinedKey(key, kind: kind.name, ref: ref, writing: true)
                }
            } else if !store.options.validatesOnSet {
                _ = try checkDeclaredType(value, forKey: key, kind: kind, ref: ref)
            }
        }
    }

    /// ``update(_:from:keys:insertingIfAbsent:)-(_,[String:Value],_,_)`` from another record's values.
    @discardableResult
    public func update(_ ref: RecordRef, from record: Record, keys: Set<String>? = nil, insertingIfAbsent: Bool = false) throws -> [String: ValueChange] {
        try update(ref, from: record.values, keys: keys, insertingIfAbsent: insertingIfAbsent)
    }

    /// ``update(_:from:keys:insertingIfAbsent:)-(_,[String:Value],_,_)`` from a model's encoding.
    /// When `keys` is nil, the keys written are the model's, as ``save(_:replacing:)`` writes them:
    /// a nil optional removes its key, a key the model does not have is kept.
    /// - Throws: ``ModelError/Code/wrongKind`` when `ref` is not of `M`'s kind;
    ///   ``ModelError/Code/invalidValue`` when the model's id is not `ref`'s and `keys` does not
    ///   leave the `id` key out (the record would name another one).
    @discardableResult
    public func update<M: StoredModel>(_ ref: RecordRef, from model: M, keys: Set<String>? = nil, insertingIfAbsent: Bool = false) throws -> [String: ValueChange] {
        try M.checkKind(of: ref)
        if keys?.contains(M.idKey) ?? true, !ref.isID(of: model.id) {
            throw ModelError(code: .invalidValue, message: "the model's id \(model.id) is not the record's id \(ref.id)", keyPath: M.idKey, ref: ref)
        }
        let (values, modelKeys) = try Self.valuesAndKeys(of: model, ref: ref)
        return try update(ref, from: values, keys: keys ?? modelKeys, insertingIfAbsent: insertingIfAbsent)
    }
}
