/// Reading the store's kind catalog (<doc:KindCatalog>), and the rules a transaction enforces.
extension ReadTransaction {
    /// The rules the store's catalog declares for kind `name`: a ``Kind`` holding the declarative
    /// part — open or closed, declared keys and their types, ``Kind/indexes``,
    /// ``Kind/tracksModificationTimes``, ``Kind/schemaVersion`` — and no closures; nil when the
    /// catalog does not declare the kind (it is open, with none of these).
    ///
    /// ```swift
    /// let person = try store.read { try $0.declaredKind(named: "person") }
    /// person?.isClosed                 // true: every process refuses undeclared keys
    /// ```
    /// - Throws: ``StoreError`` `corrupt` or `newerFormat`, naming the kind, when its stored
    ///   declaration cannot be read; ``RecordRefError`` for an invalid kind name.
    public func declaredKind(named name: String) throws -> Kind? {
        try RecordRef.validate(kind: name)
        return try kindCatalog().kind(named: name)
    }

    /// Every kind the store's catalog declares (as ``declaredKind(named:)`` gives each), in name
    /// order.
    /// - Throws: ``StoreError`` `corrupt` or `newerFormat` for the first declaration that cannot
    ///   be read.
    public func declaredKinds() throws -> [Kind] {
        let catalog = try kindCatalog()
        return try catalog.names.compactMap { name throws(StoreError) in try catalog.kind(named: name) }
    }

    /// The catalog, read once per transaction.
    func kindCatalog() throws -> KindCatalog {
        if let loadedCatalog { return loadedCatalog }
        let catalog = try store.catalogs.catalog(in: transaction, meta: databases.meta, path: store.path)
        loadedCatalog = catalog
        return catalog
    }

    /// The rules the records of kind `name` follow in this transaction: the catalog's declaration,
    /// with the closures (hooks, validators, dependent keys) registered in this process; nil for a
    /// kind that has neither (an open kind without hooks). What every read and write enforces.
    /// - Throws: ``StoreError`` naming the kind when its stored declaration cannot be read.
    @inline(__always)
    func effectiveKind(named name: String) throws -> Kind? {
        // A schemaless store: a few loads and branches, and no lookup for a snapshot already seen.
        if !store.hasRegisteredKinds && (hasNoCatalog || catalogIsKnownEmpty()) { return nil }
        return try rules(ofKind: name)
    }

    /// Whether the catalog is known to be empty without reading meta: as this transaction read
    /// it, or as another read of the same snapshot did.
    private func catalogIsKnownEmpty() -> Bool {
        if let loadedCatalog { return loadedCatalog.isEmpty }
        hasNoCatalog = store.catalogs.isEmpty(atSnapshotOf: transaction)
        return hasNoCatalog
    }

    /// ``effectiveKind(named:)``, in full: the rules composed last when neither the catalog nor the
    /// registrations changed since (a write asks for its kind's rules more than once per record).
    private func rules(ofKind name: String) throws -> Kind? {
        let catalog = try loadedCatalog ?? kindCatalog()
        let registrations = store.registrationCount  // read before the registered kind
        if let last = lastRules, last.catalog === catalog, last.registrations == registrations, last.name == name {
            return last.kind
        }
        let kind = try rules(ofKind: name, catalog: catalog)
        lastRules = LastKindRules(name: name, catalog: catalog, registrations: registrations, kind: kind)
        return kind
    }

    /// The rules of `name`: the kind registered in this process on top of its declaration in
    /// `catalog`.
    private func rules(ofKind name: String, catalog: KindCatalog) throws -> Kind? {
        let registered = store.kind(named: name)
        if !catalog.isEmpty, let declared = try catalog.kind(named: name) {
            return registered?.withDeclaration(of: declared) ?? declared
        }
        // Registered in this process but not declared in the store (read-only, a replica, or
        // another process opened the kind): the closures apply to an open kind.
        guard let registered, !KindDeclaration.isOpen(registered) else { return registered }
        return KindDeclaration.open.applied(to: registered)
    }
}

/// The rules ``ReadTransaction/effectiveKind(named:)`` composed last, and the catalog and the
/// count of registrations they were composed from (a class: looking at it copies no ``Kind``).
final class LastKindRules {
    let name: String
    let catalog: KindCatalog
    let registrations: Int
    let kind: Kind?

    init(name: String, catalog: KindCatalog, registrations: Int, kind: Kind?) {
        self.name = name
        self.catalog = catalog
        self.registrations = registrations
        self.kind = kind
    }
}
