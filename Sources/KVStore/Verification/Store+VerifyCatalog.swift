/// ``Store/verify(progress:)``'s checks of the kind catalog.
extension Store {
    /// Every declaration of the catalog reads, and the records of each closed kind keep its rules.
    func checkCatalog(_ txn: ReadTransaction, into report: inout VerificationReport) throws {
        let catalog = try KindCatalog.read(txn.transaction, meta: databases.meta, version: [], path: path)
        do { _ = try catalog.migrations } catch { report.add(error.message) }
        for name in catalog.names {
            let kind: Kind?
            do { kind = try catalog.kind(named: name) } catch {
                report.add(error.message)
                continue
            }
            guard let kind, kind.isClosed else { continue }
            let declaration = KindDeclaration(kind)
            try txn.transaction.scan(databases.records, prefix: StoreLayout.kindPrefix(name)) { key, value in
                guard let ref = StoreLayout.ref(fromKey: key), let values = try? RecordCodec.decode(value),
                      let (key, declared, found) = declaration.violation(by: values) else { return true }
                report.add(declared.map { "record \(ref) holds \(found.withArticle) at '\(key)', which kind '\(name)' declares \($0)" }
                    ?? "record \(ref) holds key '\(key)', which its closed kind '\(name)' does not declare")
                return true
            }
        }
    }

    /// How the catalog of `replayed` (the journal replayed) differs from the snapshot's.
    func catalogDifferences(_ snapshot: ReadTransaction, _ replayed: Store) throws -> [String] {
        let stored = try Dictionary(uniqueKeysWithValues: snapshot.declaredKinds().map { ($0.name, KindDeclaration($0)) })
        let rebuilt = try replayed.read { txn in
            try Dictionary(uniqueKeysWithValues: txn.declaredKinds().map { ($0.name, KindDeclaration($0)) })
        }
        func text(_ declaration: KindDeclaration?) -> String {
            declaration?.journalValue.map { TypedJSON.string(from: $0) } ?? "no declaration"
        }
        let (applied, reapplied) = (try snapshot.appliedMigrations(), try replayed.read { try $0.appliedMigrations() })
        let migrations = applied == reapplied ? [] : [
            "the store has applied the migrations [\(applied.joined(separator: ", "))], but replaying the journal gives [\(reapplied.joined(separator: ", "))]"
        ]
        return Set(stored.keys).union(rebuilt.keys).sorted(by: UTF8Text.precedes).compactMap { name in
            stored[name] == rebuilt[name] ? nil
                : "the catalog declares kind '\(name)' as \(text(stored[name])), but replaying the journal gives \(text(rebuilt[name]))"
        } + migrations
    }
}
