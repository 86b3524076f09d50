/// Why ``Migrator/migrate(_:)`` did not bring a store up to date. Nothing of the migration it
/// names was written; migrations that ran before it in the same call stay applied.
///
/// ```swift
/// do {
///     try migrator.migrate(store)
/// } catch let error as MigrationError where error.code == .unknownMigrations {
///     print(error)   // /data/store: the store has migrations this app does not know: v4 (…)
/// }
/// ```
public struct MigrationError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, CaseIterable {
        /// The store has applied migrations that the migrator does not register: a newer
        /// version of the app ran them, and this one's models may not read its records.
        case unknownMigrations
        /// A migration threw: its transaction was abandoned, and later migrations did not run.
        case migrationFailed
        /// Two migrations are registered under one name, or a name is empty or holds a control
        /// character or line break.
        case invalidName
    }

    /// What went wrong.
    public let code: Code
    /// What went wrong, for a person.
    public let message: String
    /// The migrations concerned: the one that failed, the unknown ones, or the bad name.
    public let migrations: [String]
    /// What the failed migration threw (``Code/migrationFailed`` only).
    public let underlying: (any Error)?
    /// The store's path.
    public let path: String

    init(_ code: Code, _ message: String, migrations: [String], underlying: (any Error)? = nil, path: String) {
        self.code = code
        self.message = message
        self.migrations = migrations
        self.underlying = underlying
        self.path = path
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}

extension MigrationError {
    static func unknown(_ names: [String], path: String) -> Self {
        Self(
            .unknownMigrations,
            "the store has migrations this app does not know: \(names.joined(separator: ", ")) (a newer version of the app ran them); open it with that version",
            migrations: names, path: path)
    }

    static func failed(_ name: String, _ error: any Error, path: String) -> Self {
        Self(.migrationFailed, "migration '\(name)' failed, and nothing of it was written: \(error)", migrations: [name], underlying: error, path: path)
    }
}
