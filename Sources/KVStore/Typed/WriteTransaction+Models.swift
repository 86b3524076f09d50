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
        let ref = try resolvingUUIDSpelling(model.ref)  // a legacy uppercase record exists: recordExists
        try insert(Self.valuesAndKeys(of: model, ref: ref).values, as: ref)
    }

    /// Inserts `model`, or updates its record to the model's values: an upsert. Each key whose
    /// value differs is set, one journal entry per changed key; a model equal to its record
    /// writes and journals nothing.
    ///
    /// By default (``SaveReplacement/modelKeys``) only the keys the model has are written: a key
    /// the model encodes is set, a key it has but encodes as absent (an optional that is nil) is
    /// removed, and a key the model does not have — written by a newer version of the app, or by
    /// key-value coding — is kept. Older names of the model's keys (``StoredModel/keyAliases``)
    /// are removed. This holds at the top level of the record: a nested dictionary is the value of
    /// one of the model's keys, and is replaced whole. ``SaveReplacement/wholeRecord`` makes the
    /// record exactly the model's values, removing every other key.
    ///
    /// ```swift
    /// let changes = try txn.save(contact)   // ["email": ValueChange(old: nil, new: "ada@example.com")]
    /// try txn.save(contact, replacing: .wholeRecord)   // drops keys Contact does not have
    /// ```
    /// The model's keys are those its `encode(to:)` names: the synthesized `Codable` code names
    /// every property (a nil optional through `encodeIfPresent`); a hand-written one should use
    /// `encodeIfPresent` (or `encodeNil`) for keys that may be absent, else a nil one is kept.
    /// - Returns: what changed, per key (every key, with no old values, for an insertion).
    /// - Throws: an encoding ``ModelError``, or what the kind's rules refuse (see
    ///   ``update(_:from:keys:insertingIfAbsent:)-(_,[String:Value],_,_)``).
    @discardableResult
    public func save<M: StoredModel>(_ model: M, replacing scope: SaveReplacement = .modelKeys) throws -> [String: ValueChange] {
        let (ref, exists) = try storedUUIDSpelling(model.ref)
        let (values, keys) = try Self.valuesAndKeys(of: model, ref: ref)
        guard exists else { return try insertReportingChanges(values, as: ref) }
        return try update(ref, from: values, keys: scope == .wholeRecord ? nil : keys)
    }

    /// Deletes the record of the model with id `id`.
    /// - Returns: whether there was one.
    @discardableResult
    public func delete<M: StoredModel>(_ type: M.Type, id: M.ID) throws -> Bool {
        let (ref, exists) = try storedUUIDSpelling(M.ref(id: id))
        guard exists else { return false }
        try delete(ref)
        return true
    }

    /// Inserts a record and reports each of its keys as inserted, with the value stored (the
    /// kind's rules may have converted or rewritten it).
    func insertReportingChanges(_ values: [String: Value], as ref: RecordRef) throws -> [String: ValueChange] {
        try insert(values, as: ref)
        return try existingRecord(ref).mapValues { ValueChange(old: nil, new: $0) }
    }

    /// The model's values, and the keys a save of it writes: the keys it has (nil optionals
    /// included) and the older names of those keys.
    static func valuesAndKeys<M: StoredModel>(of model: M, ref: RecordRef) throws -> (values: [String: Value], keys: Set<String>) {
        do {
            let (values, keys) = try ValueEncoder().encodeRecordWithKeys(model)
            return (values, keys.union(M.olderNames(of: keys)))
        } catch {
            throw ModelError.attributing(error, to: ref)
        }
    }
}

/// Which keys of a record ``WriteTransaction/save(_:replacing:)`` writes.
public enum SaveReplacement: Sendable, Hashable {
    /// The keys the model has, nil optionals included (removed); other keys are kept.
    case modelKeys
    /// Every key: the record becomes exactly the model's values.
    case wholeRecord
}
