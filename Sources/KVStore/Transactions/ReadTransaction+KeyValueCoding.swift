import LMDB

/// Key-value coding reads (<doc:KeyValueCodingAndKinds>).
extension ReadTransaction {
    /// The value of `key` in the record, after the kind's rules: a key the record does not hold
    /// (open kind) or the kind does not declare (closed kind) goes to the kind's
    /// `valueForUndefinedKey` hook, whose default is nil for open kinds and an error for closed ones.
    ///
    /// ```swift
    /// try txn.value(forKey: "name", of: ada)   // .string("Ada")
    /// ```
    /// - Throws: ``KeyValueCodingError`` (`recordNotFound`, `undefinedKey`), or what the hook throws.
    public func value(forKey key: String, of ref: RecordRef) throws -> Value? {
        try withRecordBytes(ref) { record in
            guard let record else { throw KeyValueCodingError.recordNotFound(ref) }
            return try value(forKey: key, of: ref, record: record)
        }
    }

    /// ``value(forKey:of:)`` of a record whose stored encoding the caller has already read (a
    /// scan), without looking it up again.
    func value(forKey key: String, of ref: RecordRef, record: UnsafeRawBufferPointer) throws -> Value? {
        if !store.hasRegisteredKinds {
            // No hooks here, and a record holds only keys its kind declares (every writer and
            // every declaration keeps to that): a stored key needs no look at the kind catalog.
            if let stored = try storedValue(forKey: key, in: record, of: ref) { return stored }
            if let kind = try effectiveKind(named: ref.kind), kind.isClosed, !kind.declares(key) {
                throw KeyValueCodingError.undefinedKey(key, kind: kind.name, ref: ref)
            }
            return nil
        }
        let kind = try effectiveKind(named: ref.kind)
        if let kind, kind.isClosed, !kind.declares(key) {
            return try undefinedValue(forKey: key, of: ref, kind: kind)
        }
        if let stored = try storedValue(forKey: key, in: record, of: ref) { return stored }
        if let kind, !kind.isClosed, let hook = kind.valueForUndefinedKey { return try hook(key, ref, self) }
        return nil
    }

    private func undefinedValue(forKey key: String, of ref: RecordRef, kind: Kind) throws -> Value? {
        guard let hook = kind.valueForUndefinedKey else {
            throw KeyValueCodingError.undefinedKey(key, kind: kind.name, ref: ref)
        }
        return try hook(key, ref, self)
    }

    /// The value at a dot-separated key path from the record: through nested dictionaries, through
    /// references to other records, over arrays element by element, and through collection operators.
    ///
    /// ```swift
    /// try txn.value(forKeyPath: "address.city", of: ada)          // "London"
    /// try txn.value(forKeyPath: "spouse.name", of: ada)           // through a reference
    /// try txn.value(forKeyPath: "invoices.@sum.amount", of: ada)  // a collection operator
    /// ```
    /// A missing intermediate gives nil.
    /// - Throws: ``KeyValueCodingError`` for a malformed path, an unknown operator, a missing record,
    ///   or a key into a scalar.
    public func value(forKeyPath keyPath: String, of ref: RecordRef) throws -> Value? {
        let path = try KeyValuePath(keyPath)
        if path.components.count == 1, let key = path.firstKey { return try value(forKey: key, of: ref) }
        guard try contains(ref) else { throw KeyValueCodingError.recordNotFound(ref) }
        return try KeyPathEvaluator.value(forKeyPath: path, of: ref, source: TransactionSource(transaction: self))
    }

    /// The value at a key path over all records of `kind`, in id order: `@count`, `@sum.amount`,
    /// `@distinctUnionOfObjects.city`, or a plain key path that gives each record's value
    /// (`null` where missing).
    ///
    /// ```swift
    /// try txn.value(forKeyPath: "@sum.amount", ofKind: "invoice")   // .int(1234)
    /// ```
    ///
    /// `@count` reads the kind's counter; the other operators that start the path read the
    /// records one at a time, holding only the right key path's values, not every record (in a
    /// read transaction, the scan gives the map's pages it passed back as it goes).
    public func value(forKeyPath keyPath: String, ofKind kind: String) throws -> Value? {
        let path = try KeyValuePath(keyPath)
        if case .operator(let op)? = path.components.first, Self.streamedOperators.contains(op) {
            if op == .count { return .int(Int64(try count(ofKind: kind))) }
            let rest = path.components.dropFirst()
            if rest.count == 1, case .key(let key)? = rest.first, let total = try intTotal(op, ofKey: key, ofKind: kind) {
                return total
            }
            var values: [Value?] = []
            try RecordRef.validate(kind: kind)
            try transaction.scan(databases.records, prefix: StoreLayout.kindPrefix(kind)) { key, record in
                guard let ref = StoreLayout.ref(fromKey: key) else { return true }
                let source = ScannedRecordSource(transaction: self, ref: ref, record: record)
                values.append(try KeyPathEvaluator.value(at: rest, in: .reference(ref), source: source, fullPath: path))
                return true
            }
            return try op.combine(values, keyPath: path.description)
        }
        let refs = try refs(ofKind: kind).map(Value.reference)
        return try KeyPathEvaluator.value(forKeyPath: path, ofCollection: refs, source: TransactionSource(transaction: self))
    }

    /// Operators over a kind's records that need no list of the records first.
    private static let streamedOperators: Set<CollectionOperator> = [
        .count, .sum, .avg, .max, .min, .unionOfObjects, .distinctUnionOfObjects,
    ]

    /// The values of `keys`, `null` for each one that has no value (Foundation's
    /// `dictionaryWithValuesForKeys:`).
    public func dictionaryWithValues(forKeys keys: [String], of ref: RecordRef) throws -> [String: Value] {
        var result: [String: Value] = [:]
        for key in keys { result[key] = try value(forKey: key, of: ref) ?? .null }
        return result
    }
}

/// Key-path evaluation over a transaction: a dangling reference reads as nil.
/// A ``TransactionSource`` that reads the record a scan stands on from the bytes the scan
/// already has, instead of looking it up again.
struct ScannedRecordSource: KeyValueSource {
    let transaction: ReadTransaction
    let ref: RecordRef
    let record: UnsafeRawBufferPointer

    func value(forKey key: String, of ref: RecordRef) throws -> Value? {
        if ref == self.ref { return try transaction.value(forKey: key, of: ref, record: record) }
        return try TransactionSource(transaction: transaction).value(forKey: key, of: ref)
    }
}

struct TransactionSource: KeyValueSource {
    let transaction: ReadTransaction

    func value(forKey key: String, of ref: RecordRef) throws -> Value? {
        do {
            return try transaction.value(forKey: key, of: ref)
        } catch let error as KeyValueCodingError where error.code == .recordNotFound && error.ref == ref {
            return nil
        }
    }
}
