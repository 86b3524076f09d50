import LMDB

/// Migrations of a store's records from one version of an app's models to the next, registered
/// by name in the order they must run (<doc:Migrations>).
///
/// ```swift
/// var migrator = Migrator()
/// migrator.register("v2: rename title") { txn in
///     for record in try txn.records(ofKind: "task") {
///         try txn.update(record.ref, from: ["name": record.values["title"] ?? .null], keys: ["name", "title"])
///     }
/// }
/// migrator.register("v3: priorities") { txn in … }
/// try migrator.migrate(store)   // runs what the store has not applied yet, in order
/// ```
///
/// Each migration runs once per store: in one write transaction together with the record that
/// it ran (kept in the store's catalog and journaled, so replicas and replays carry it). A
/// migration that throws is abandoned whole, and the migrations after it do not run. Two processes
/// migrating one store at once do not run a migration twice: each checks the record inside the
/// migration's write transaction, which LMDB gives one writer at a time. A migrator is `Sendable`:
/// build it once and use it from any thread or task.
public struct Migrator: Sendable {
    /// A migration: what it writes, through `transaction`, with the kinds' rules, hooks, indexes
    /// and journal of any write. It may run more than once if its transaction is retried (a group
    /// commit that fills the map runs again): only what it writes to the store counts.
    public typealias Migration = @Sendable (_ transaction: WriteTransaction) throws -> Void

    private var migrations: [(name: String, migrate: Migration)] = []

    /// A migrator with no migrations.
    public init() {}

    /// The names of the registered migrations, in the order they run.
    public var names: [String] { migrations.map(\.name) }

    /// Registers `migrate` under `name`, to run after the migrations registered before it. The
    /// name is what the store records: never rename a migration that has shipped.
    public mutating func register(_ name: String, _ migrate: @escaping Migration) {
        migrations.append((name, migrate))
    }

    /// Runs, in registration order, each migration `store` has not applied, each in its own write
    /// transaction that also records it. A store with every migration applied is not written to.
    /// - Returns: the names of the migrations that ran (empty: the store was up to date).
    /// - Throws: ``MigrationError`` `unknownMigrations` (nothing runs), `migrationFailed` (that
    ///   migration is rolled back; those before it stay applied), `invalidName`; what a write
    ///   throws (``StoreError/Code/readOnly``, ``StoreError/Code/replica``: a replica's migrations
    ///   come from its source).
    @discardableResult
    public func migrate(_ store: Store) throws -> [String] {
        var ran: [String] = []
        for (name, migrate) in try pending(in: store) {
            let didRun = try store.write { txn -> Bool in
                // Another process may have run it since the read: the check that counts is here.
                guard try !checkedApplied(txn, store: store).contains(name) else { return false }
                do { try migrate(txn) } catch { throw MigrationError.failed(name, error, path: store.path) }
                try txn.recordMigration(name)
                return true
            }
            if didRun { ran.append(name) }
        }
        return ran
    }

    /// The names of the registered migrations that `store` has not applied, in the order they
    /// would run.
    /// - Throws: ``MigrationError`` `unknownMigrations` or `invalidName`.
    public func pendingMigrations(in store: Store) throws -> [String] {
        try pending(in: store).map(\.name)
    }

    private func pending(in store: Store) throws -> [(name: String, migrate: Migration)] {
        try checkNames(path: store.path)
        let applied = try store.read { try checkedApplied($0, store: store) }
        return migrations.filter { !applied.contains($0.name) }
    }

    /// The migrations the store has applied, refused when one of them is not registered.
    private func checkedApplied(_ txn: ReadTransaction, store: Store) throws -> Set<String> {
        let applied = try txn.appliedMigrations()
        let known = Set(names)
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty { throw MigrationError.unknown(unknown, path: store.path) }
        return Set(applied)
    }

    /// Whether `scalar` may not be in a name: the store records it, and messages and
    /// `kvstore kind` show it on one line.
    private static func breaksLine(_ scalar: Unicode.Scalar) -> Bool {
        [.control, .lineSeparator, .paragraphSeparator].contains(scalar.properties.generalCategory)
    }

    private func checkNames(path: String) throws {
        try Self.checkNames(names, path: path)
    }

    /// Throws ``MigrationError/Code/invalidName`` for an empty name, one holding a control
    /// character or line break, or a name listed twice.
    static func checkNames(_ names: [String], path: String) throws {
        var seen: Set<String> = []
        for name in names {
            if name.isEmpty { throw MigrationError(.invalidName, "a migration has an empty name", migrations: [name], path: path) }
            if name.unicodeScalars.contains(where: Self.breaksLine) {
                let shown = name.escapingScalars(where: Self.breaksLine)
                throw MigrationError(.invalidName, "migration name '\(shown)' holds a control character or line break", migrations: [name], path: path)
            }
            if !seen.insert(name).inserted {
                throw MigrationError(.invalidName, "two migrations are registered as '\(name)'", migrations: [name], path: path)
            }
        }
    }
}
