import LMDB
import Synchronization

/// The decoded kind catalog of one LMDB environment, shared by every ``Store`` open on it, so a
/// transaction pays for the catalog at most one lookup of meta's `catalog-version`, and a
/// schemaless store's read transactions usually not even that.
///
/// Another process may change the catalog at any time, so each transaction asks for it (once:
/// ``ReadTransaction`` keeps what it got). The answer is keyed by what cannot lie:
/// - a `catalog-version` names one catalog for good (it is random, new with every change), so
///   the catalog decoded last serves every transaction that reads the same version;
/// - a read transaction's LMDB id names one committed snapshot, so a snapshot known to have no
///   catalog, or known to have the catalog decoded last, needs no lookup at all. (A write
///   transaction's id is not a snapshot yet — it may abort and its id be used again — so writes
///   always read the version.)
///
/// ```swift
/// let catalog = try KindCatalogCache.shared(for: environment).catalog(in: txn, meta: meta, path: path)
/// ```
final class KindCatalogCache: Sendable {
    /// A read snapshot (LMDB transaction id) whose catalog is empty; -1 when none is known.
    private let emptySnapshot = Atomic<Int>(-1)
    /// The catalog decoded last, and a read snapshot known to have it (-1: none).
    private let latest = LockedState<(catalog: KindCatalog, snapshot: Int)>((.empty, -1))

    private static let caches = EnvironmentShared<KindCatalogCache>()

    /// The cache of `environment`, made on first use.
    static func shared(for environment: Environment) -> KindCatalogCache {
        caches.object(for: environment) { KindCatalogCache() }
    }

    /// Whether `txn` is a read transaction of a snapshot known to have no catalog.
    func isEmpty(atSnapshotOf txn: LMDB.Transaction) -> Bool {
        txn.isReadOnly && emptySnapshot.load(ordering: .relaxed) == txn.id
    }

    /// The catalog `txn` sees.
    /// - Throws: an LMDB error reading meta (a declaration that does not decode is kept in the
    ///   catalog as the error its kind gives).
    func catalog(in txn: LMDB.Transaction, meta: Database, path: String) throws -> KindCatalog {
        let snapshot = txn.isReadOnly ? txn.id : -1
        if snapshot >= 0 {
            if isEmpty(atSnapshotOf: txn) { return .empty }
            let known = latest.withLock { $0 }
            if known.snapshot == snapshot { return known.catalog }
        }
        let cached = latest.withLock { $0.catalog }
        enum Lookup { case empty, cached, changed([UInt8]) }
        let lookup = try txn.withValue(forKey: StoreLayout.MetaKey.catalogVersion, in: meta) { version -> Lookup in
            guard let version else { return .empty }
            if let known = cached.version, version.elementsEqual(known) { return .cached }
            return .changed(Array(version))
        }
        switch lookup {
        case .empty:
            if snapshot >= 0 { emptySnapshot.store(snapshot, ordering: .relaxed) }
            return .empty
        case .cached:
            if snapshot >= 0 { latest.withLock { if $0.catalog === cached { $0.snapshot = snapshot } } }
            return cached
        case .changed(let version):
            let catalog = try KindCatalog.read(txn, meta: meta, version: version, path: path)
            latest.withLock { $0 = (catalog, snapshot) }
            return catalog
        }
    }
}
