import Foundation

/// Changing the store's kind catalog (<doc:KindCatalog>).
extension WriteTransaction {
    /// Stores the declarative rules of `kind` in the store's catalog, in this transaction: open or
    /// closed, the declared keys and their types, ``Kind/indexes``,
    /// ``Kind/tracksModificationTimes`` and ``Kind/schemaVersion``. Its closures are not stored
    /// (``Store/register(_:)`` also registers them in this process). From the commit on, every
    /// process and every path that writes the kind's records enforces these rules. The change is
    /// journaled as one ``ChangeKind/kindDeclared`` entry; declaring the rules already stored
    /// changes nothing and journals nothing. An open kind with no indexes, no modification times
    /// and schema version 0 removes the kind from the catalog.
    ///
    /// ```swift
    /// try store.write { txn in
    ///     var person = try txn.declaredKind(named: "person") ?? Kind("person")
    ///     person.declaredKeys = ["name": .string, "age": .int]   // close it
    ///     try txn.declare(person)
    /// }
    /// ```
    /// A stored declaration that is damaged (``StoreError/Code/corrupt``) is replaced.
    /// - Throws: ``KeyValueCodingError`` `undefinedKey` or `typeMismatch` naming the first record
    ///   (in id order) and key that the new rules refuse — closing a kind whose records hold other
    ///   keys, declaring a type that some record's value does not have — and nothing changes;
    ///   ``StoreError/Code/replica`` on a replica (its catalog comes from its source);
    ///   ``StoreError/Code/kindRefused`` for kind `kvstore.migrations`, which records the store's
    ///   migrations (<doc:Migrations>).
    public func declare(_ kind: Kind) throws {
        if kind.name == MigrationLog.kind {
            throw StoreError(.kindRefused, "kind '\(kind.name)' is reserved: it records the store's migrations", path: store.path)
        }
        try declare(KindDeclaration(kind), ofKind: kind.name)
    }

    /// Stores `new` as the declaration of kind `name` (see ``declare(_:)``).
    /// - Returns: whether the catalog changed.
    @discardableResult
    func declare(_ new: KindDeclaration, ofKind name: String) throws -> Bool {
        let old: KindDeclaration?  // nil: the stored one is damaged
        do {
            let catalog = try kindCatalog()
            old = name == MigrationLog.kind
                ? KindDeclaration(migrations: try catalog.migrations)
                : try catalog.kind(named: name).map(KindDeclaration.init) ?? .open
        } catch let error as StoreError where error.code == .corrupt {
            old = nil
        }
        if old == new { return false }
        try checkLocalWriteAllowed()  // a replica's catalog comes from its source
        if let keys = new.declaredKeys, keys != old?.declaredKeys { try checkRecords(ofKind: name, against: new) }
        let ref = try RecordRef(kind: name, id: "*")
        try journal(.kindDeclared, ref: ref, keyPath: nil, old: old?.journalValue, new: new.journalValue)
        let meta = databases.meta
        if new.isOpen {
            try transaction.delete(StoreLayout.MetaKey.catalog(name), in: meta)
        } else {
            try transaction.put(StoreLayout.MetaKey.catalog(name), new.encoded, in: meta)
        }
        try replaceCatalogVersion()
        try raiseFormat(to: StoreLayout.catalogFormatVersion)
        let oldIndexes = old?.indexes ?? []
        if oldIndexes != new.indexes { try indexesChanged(ofKind: name, from: oldIndexes, to: new.indexes) }
        return true
    }

    /// Refuses rules that a record of the kind breaks, naming the first one (in id order) and its key.
    private func checkRecords(ofKind name: String, against declaration: KindDeclaration) throws {
        var refusal: KeyValueCodingError?
        try forEachRecord(ofKind: name) { record in
            guard let (key, declared, found) = declaration.violation(by: record.values) else { return true }
            refusal = KeyValueCodingError.declarationRefused(kind: name, key: key, declared: declared, found: found, ref: record.ref)
            return false
        }
        if let refusal { throw refusal }
    }
}

extension KeyValueCodingError {
    /// A kind declaration that a stored record breaks: the record holds `key`, which a closed kind
    /// would not declare (`declared` nil), or a value of type `found` where `declared` is declared.
    static func declarationRefused(kind: String, key: String, declared: ValueType?, found: ValueType, ref: RecordRef) -> Self {
        guard let declared else {
            return Self(
                code: .undefinedKey,
                message: "kind '\(kind)' cannot be declared so: the record holds key '\(key)', which the declaration leaves out; remove the key from the records or declare it",
                keyPath: key, ref: ref)
        }
        return Self(
            code: .typeMismatch,
            message: "kind '\(kind)' cannot be declared so: key '\(key)' holds \(found.withArticle), not the declared \(declared); convert the records' values or declare another type",
            keyPath: key, ref: ref)
    }
}
