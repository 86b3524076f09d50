/// Where a store records the migrations applied to it (<doc:Migrations>): in its kind catalog,
/// as the declaration of the reserved kind `kvstore.migrations` (meta `catalog/kvstore.migrations`,
/// whose `migrations` field lists their names in the order they ran). Recording one is a catalog
/// change like any other: it replaces `catalog-version` and is journaled as one
/// ``ChangeKind/kindDeclared`` entry (`kvstore.migrations/*`) in the migration's own transaction,
/// so replicas, `journal apply` and replay carry it with the records the migration changed.
enum MigrationLog {
    /// The reserved kind whose declaration lists the applied migrations; no kind may be declared
    /// under this name.
    static let kind = "kvstore.migrations"
}

extension ReadTransaction {
    /// The names of the migrations applied to the store (by ``Migrator/migrate(_:)``, here or in
    /// the store a replica or replay copies), in the order they ran; empty when none was.
    ///
    /// ```swift
    /// let applied = try store.read { try $0.appliedMigrations() }   // ["v2", "v3"]
    /// ```
    /// - Throws: ``StoreError`` `corrupt` or `newerFormat` when the record of them cannot be read.
    public func appliedMigrations() throws -> [String] {
        try kindCatalog().migrations
    }
}

extension WriteTransaction {
    /// Records migration `name` as applied, after those applied before, in this transaction.
    func recordMigration(_ name: String) throws {
        let applied = try appliedMigrations()
        try declare(KindDeclaration(migrations: applied + [name]), ofKind: MigrationLog.kind)
    }
}

extension WriteTransaction {
    /// Records `names` as the store's applied migrations, as a dump of a migrated store lists them
    /// (`kvstore load`), so that a migrator does not run them again on records they already
    /// changed: nothing when the store has applied exactly these.
    /// - Throws: ``MigrationError`` `invalidName` for a name a migrator would refuse, and
    ///   `unknownMigrations` when the store has applied other migrations, or none but holds
    ///   records (they were not migrated: run the migrations there first, or load into a new store).
    package func adoptMigrations(_ names: [String]) throws {
        let applied = try appliedMigrations()
        guard applied != names else { return }
        let path = store.path
        try Migrator.checkNames(names, path: path)
        let listed = names.joined(separator: ", ")
        guard applied.isEmpty else {
            throw MigrationError(
                .unknownMigrations,
                "the records come from a store with migrations \(listed) applied, and this store has \(applied.joined(separator: ", ")): load them into a new store",
                migrations: names, path: path)
        }
        guard try kinds().isEmpty else {
            throw MigrationError(
                .unknownMigrations,
                "the records come from a store with migrations \(listed) applied, and this store holds records none was applied to: run the migrations here first, or load into a new store",
                migrations: names, path: path)
        }
        try declare(KindDeclaration(migrations: names), ofKind: MigrationLog.kind)
    }
}
