import LMDB

/// The store's kind catalog as one snapshot of it holds it: each declared kind's rules (a
/// ``Kind`` without closures), or the error its damaged value gives — so a damaged declaration
/// fails the reads and writes of its own kind only.
///
/// ```swift
/// let catalog = try KindCatalog.read(txn, meta: meta, version: version, path: path)
/// try catalog.kind(named: "person")?.isClosed
/// ```
final class KindCatalog: Sendable {
    /// No declaration at all: a schemaless store's.
    static let empty = KindCatalog(version: nil, kinds: [:], sync: .success(nil), migrations: .success([]))

    /// The `catalog-version` this catalog was read at; nil for ``empty``.
    let version: [UInt8]?
    private let kinds: [String: Result<Kind, StoreError>]
    /// The store's ``SyncConfiguration`` (meta `sync/config`, read with the catalog: writing it
    /// replaces `catalog-version`), or the error its damaged value gives.
    private let syncConfiguration: Result<SyncConfiguration?, StoreError>
    /// Whether meta `sync/config` is there (readable or not): what every journaled change asks first.
    let hasSyncConfiguration: Bool

    /// The names of the migrations applied to the store (``MigrationLog``), or the error its
    /// damaged entry gives.
    private let appliedMigrations: Result<[String], StoreError>

    /// Whether no kind is declared (stored: every write asks).
    let isEmpty: Bool

    private init(
        version: [UInt8]?, kinds: [String: Result<Kind, StoreError>], sync: Result<SyncConfiguration?, StoreError>,
        migrations: Result<[String], StoreError>
    ) {
        self.version = version
        self.kinds = kinds
        self.syncConfiguration = sync
        self.appliedMigrations = migrations
        if case .success(nil) = sync { hasSyncConfiguration = false } else { hasSyncConfiguration = true }
        self.isEmpty = kinds.isEmpty
    }

    /// The declared kinds' names, in the store's order.
    var names: [String] { kinds.keys.sorted(by: UTF8Text.precedes) }

    /// Whether the catalog holds a declaration of `name` (readable or not).
    func declares(_ name: String) -> Bool {
        !isEmpty && kinds[name] != nil
    }

    /// The declared rules of `name`, or nil when the catalog does not declare it.
    /// - Throws: ``StoreError`` (`corrupt`, `newerFormat`) naming the kind, when its stored value
    ///   cannot be read.
    func kind(named name: String) throws(StoreError) -> Kind? {
        guard !isEmpty, let entry = kinds[name] else { return nil }
        return try entry.get()
    }

    /// Which kinds the store syncs; nil when it does not sync.
    /// - Throws: ``StoreError`` (`corrupt`, `newerFormat`) when meta `sync/config` cannot be read.
    var sync: SyncConfiguration? {
        get throws(StoreError) { try syncConfiguration.get() }
    }

    /// The names of the migrations applied to the store, in the order they ran.
    /// - Throws: ``StoreError`` (`corrupt`, `newerFormat`) when their entry cannot be read.
    var migrations: [String] {
        get throws(StoreError) { try appliedMigrations.get() }
    }

    /// Reads every `catalog/` entry of `meta`, and `sync/config`.
    static func read(_ txn: LMDB.Transaction, meta: Database, version: [UInt8], path: String) throws -> KindCatalog {
        let prefix = StoreLayout.MetaKey.catalogPrefix
        var kinds: [String: Result<Kind, StoreError>] = [:]
        var migrations = Result<[String], StoreError>.success([])
        try txn.scan(meta, prefix: prefix) { key, value in
            let name = String(decoding: key.dropFirst(prefix.count), as: UTF8.self)
            let declaration = Result { () throws(StoreError) -> KindDeclaration in
                do throws(DeclarationError) { return try KindDeclaration(encoded: value) } catch {
                    throw error.storeError(kind: name, path: path)
                }
            }
            if name == MigrationLog.kind {
                migrations = declaration.map(\.migrations)
                return true
            }
            kinds[name] = Result { () throws(StoreError) -> Kind in
                let declaration = try declaration.get()
                guard let kind = try? Kind(name) else {
                    throw StoreError(.corrupt, "the catalog declares a kind named '\(name)', which is not a valid kind name", path: path)
                }
                return declaration.applied(to: kind)
            }
            return true
        }
        let sync = try txn.withValue(forKey: StoreLayout.MetaKey.syncConfig, in: meta) { bytes in
            Result { () throws(StoreError) -> SyncConfiguration? in try bytes.map { bytes throws(StoreError) in try SyncConfiguration(encoded: bytes, path: path) } }
        }
        return KindCatalog(version: version, kinds: kinds, sync: sync, migrations: migrations)
    }
}
