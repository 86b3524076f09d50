import LMDB

/// The hybrid logical clock's state as the last write committed in this process left it, shared
/// by every ``Store`` open on one LMDB environment, so that a write of a store that does not
/// sync finds the clock without reading meta `sync/clock` and the journal's last entry.
///
/// Another process may write at any time; the cached state is keyed by what tells whether it
/// still holds:
/// - the journal's last sequence: every write that journals raises it, and nothing but a write
///   that journals moves the clock of a store that does not sync (truncating the journal's last
///   entry saves the same state in meta);
/// - the kind catalog the write read (a new one with every change of `sync/config`): a store
///   that syncs moves its clock without journaling (a remote time adopted, ``WriteTransaction/applyRemote(_:hubNow:)``),
///   so its writes always read the clock, and a cached state is not used after sync was turned
///   on or off.
final class ClockCache: Sendable {
    struct Entry: Sendable {
        /// The journal's last sequence after the commit.
        let sequence: UInt64
        /// The clock's state after the commit.
        let time: HybridTime
        /// The catalog the write read: without a sync configuration.
        let catalog: KindCatalog
    }

    private let latest = LockedState<Entry?>(nil)
    private static let caches = EnvironmentShared<ClockCache>()

    /// The cache of `environment`, made on first use.
    static func shared(for environment: Environment) -> ClockCache {
        caches.object(for: environment) { ClockCache() }
    }

    /// The clock's state when the journal's last sequence is `sequence` and the store's catalog
    /// is `catalog`, if a commit in this process left it so.
    func time(at sequence: UInt64, catalog: KindCatalog) -> HybridTime? {
        latest.withLock { entry in
            guard let entry, entry.sequence == sequence, entry.catalog === catalog else { return nil }
            return entry.time
        }
    }

    /// Keeps `entry`, what a write that just committed left.
    func committed(_ entry: Entry) {
        latest.withLock { $0 = entry }
    }
}
