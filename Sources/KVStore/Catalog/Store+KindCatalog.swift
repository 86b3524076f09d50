/// Storing the kinds a store is opened or registered with in its catalog.
extension Store {
    /// Whether the catalog already declares `kind`'s rules (a damaged declaration does not).
    func isDeclared(_ kind: Kind, in txn: ReadTransaction) throws -> Bool {
        let stored: KindDeclaration
        do {
            stored = try txn.declaredKind(named: kind.name).map(KindDeclaration.init) ?? .open
        } catch let error as StoreError where error.code == .corrupt {
            return false
        }
        return stored == KindDeclaration(kind)
    }

    /// ``isDeclared(_:in:)`` in a read of its own.
    func isDeclared(_ kind: Kind) throws -> Bool {
        try read { try isDeclared(kind, in: $0) }
    }

    /// Declares the kinds of ``Options/kinds`` (the last of each name) that the catalog does not
    /// declare so, in one write — unless the store takes no writes (read-only, or a replica).
    /// - Throws: ``StoreError/Code/kindRefused`` when the store's records break one of them.
    func declareOnOpening(_ kinds: [Kind]) throws(StoreError) {
        let byName = Dictionary(kinds.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        let ordered = byName.keys.sorted(by: UTF8Text.precedes).map { byName[$0]! }
        do {
            let (undeclared, role) = try read { txn in
                (try ordered.filter { try !isDeclared($0, in: txn) }, try txn.replicationRole())
            }
            if undeclared.isEmpty || options.readOnly { return }
            if case .replica = role { return }
            try write { txn in for kind in undeclared { try txn.declare(kind) } }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.kindRefused, "cannot register the kinds the store is opened with: \(error)", path: path)
        }
    }
}
