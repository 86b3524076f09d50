import Foundation
@_spi(Sync) import KVStore

/// Syncs one store with one hub: uploads the store's own changes, downloads and applies the
/// other stores' changes by per-key last-writer-wins.
///
/// ```swift
/// let engine = SyncEngine(store: store, hub: try HubConfiguration(url: "postgres://sync@db.example/app"),
///                         options: SyncEngine.Options(kinds: ["note", "person"]))
/// print(try await engine.sync())          // one pass
/// try await engine.follow { print($0) }   // until the task is cancelled
/// ```
///
/// A pass uploads the local changes after the store's upload cursor in batches, one hub
/// transaction each, and moves the cursor only after the hub committed; then it downloads the
/// other stores' changes after the download cursor and applies each page and the new cursor in
/// one write transaction — killed anywhere and run again, nothing is lost and nothing applied
/// twice. Cursors belong to one hub (its identity): with another hub a store starts over.
/// Every pass measures the hub's clock and stores the offset with the cursors. No transaction
/// of the store is held across a request to the hub: reads and local writes never wait for it.
public final class SyncEngine: Sendable {
    /// How a store syncs.
    public struct Options: Sendable, Equatable {
        /// The kinds to sync: the store is set to sync exactly these (refused for a kind that has
        /// records and did not sync yet). nil: the kinds the store syncs already, every kind for a
        /// store that does not sync yet.
        public var kinds: Set<String>?
        /// The most journal entries per upload batch and changes per download page (default 5,000:
        /// each batch and page is a hub transaction and a store commit, and 1,000 uploaded and
        /// downloaded 2.5 times slower).
        public var batchSize: Int
        /// How often a follower also checks the hub without a wake-up (changes committed while
        /// an unrelated long transaction held the hub's horizon back are seen then).
        public var pollInterval: Duration
        /// A follower's delay before reconnecting: the first, doubled after each failure up to
        /// the last.
        public var reconnectDelays: ClosedRange<Duration>

        /// Options; see each property.
        public init(kinds: Set<String>? = nil, batchSize: Int = 5000, pollInterval: Duration = .seconds(5),
                    reconnectDelays: ClosedRange<Duration> = .milliseconds(100) ... .seconds(30)) {
            self.kinds = kinds
            self.batchSize = max(1, batchSize)
            self.pollInterval = pollInterval
            self.reconnectDelays = reconnectDelays
        }
    }

    /// The store synced.
    public let store: Store
    /// The hub.
    public let hub: HubConfiguration
    /// How it syncs.
    public let options: Options

    /// An engine; nothing happens until ``sync()`` or ``follow(_:)``.
    public init(store: Store, hub: HubConfiguration, options: Options = Options()) {
        self.store = store
        self.hub = hub
        self.options = options
    }

    /// Connects, runs one pass (upload, then download), and disconnects.
    /// - Throws: ``SyncError`` (the hub, or ``SyncError/Code/restoredOrCopied``,
    ///   ``SyncError/Code/storeRefused``), or the store's `StoreError`.
    public func sync() async throws -> SyncReport {
        let client = try await HubClient.connect(hub)
        do {
            let configuration = try configure()
            let report = try await pass(client, configuration)
            await client.close()
            return report
        } catch {
            await client.close()
            throw error
        }
    }

    /// One pass on a connected client.
    func pass(_ client: HubClient, _ configuration: SyncConfiguration) async throws -> SyncReport {
        let probe = try await client.probe(localClock: store.options.wallClock)
        var report = SyncReport()
        report.hub = probe.identity
        report.clockOffsetMilliseconds = probe.offsetMilliseconds
        try await checkNotRestored(client)
        let cursors = try prepareCursors(probe)
        let start = try await store.read { try $0.syncUploadStart() }
        try await upload(client, after: max(cursors.uploadedThrough, start), hub: probe, into: &report)
        try await download(client, after: cursors.download, kinds: configuration.kinds, hub: probe, into: &report)
        report.clockClamped = try await store.read { try $0.clockIsClamped() }
        return report
    }

    /// Sets the store to sync ``Options/kinds`` (when it does not already), and returns what it
    /// syncs. A change of kinds starts the download over, so that the new kinds' changes come.
    func configure() throws -> SyncConfiguration {
        let current = try store.read { try $0.syncConfiguration() }
        let wanted = options.kinds.map { SyncConfiguration(kinds: $0) } ?? current ?? SyncConfiguration(kinds: nil)
        if wanted == current { return wanted }
        try local {
            try store.write { txn in
                try txn.setSyncConfiguration(wanted)
                if var cursors = try txn.syncCursors() {
                    cursors.download = []
                    try txn.setSyncCursors(cursors)
                }
            }
        }
        return wanted
    }

    /// The store's cursors with this hub (fresh ones when it has none, or another hub's), with
    /// the offset just measured stored when it moved.
    private func prepareCursors(_ probe: HubProbe) throws -> SyncCursors {
        let stored = try store.read { try $0.syncCursors() }
        if let stored, stored.hub == probe.identity.lowercasedText, let offset = stored.hubOffsetMilliseconds,
           abs(offset - probe.offsetMilliseconds) < 50 {
            return stored
        }
        return try local {
            try store.write { txn in
                var cursors = try Self.cursors(in: txn, hub: probe)
                cursors.hubOffsetMilliseconds = probe.offsetMilliseconds
                try txn.setSyncCursors(cursors)
                return cursors
            }
        }
    }

    /// The cursors stored for `hub`, or fresh ones (another hub's are not reused).
    static func cursors(in txn: ReadTransaction, hub: HubProbe) throws -> SyncCursors {
        if let stored = try txn.syncCursors(), stored.hub == hub.identity.lowercasedText { return stored }
        return SyncCursors(hub: hub.identity.lowercasedText, uploadedThrough: 0, download: [], hubOffsetMilliseconds: hub.offsetMilliseconds)
    }

    /// Refuses a store whose id the hub knows with changes past its journal's end: restored
    /// from a backup or copied (syncing it would fork the id's sequences).
    private func checkNotRestored(_ client: HubClient) async throws {
        guard let through = try await client.store(store.id)?.uploadedThrough else { return }
        let last = try await store.read { try $0.lastSequence() }
        if through > last {
            throw SyncError(.restoredOrCopied, hub: hub.name, "store \(store.path) (id \(store.id.lowercasedText)) was restored from a "
                                + "backup or copied: the hub holds its changes through sequence \(through), its journal ends at \(last); "
                                + "sync a new store instead (kvstore dump this one and load it into a new store that syncs)")
        }
    }

    /// Runs `body`, turning the store's refusals of sync into ``SyncError``.
    func local<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SyncStateError {
            let code: SyncError.Code = error.code == .cursorAhead ? .restoredOrCopied : .storeRefused
            throw SyncError(code, hub: hub.name, "store \(store.path): \(error.message)")
        }
    }
}

extension UUID {
    /// The uuid in lowercase, as the hub and the store's cursors hold it.
    var lowercasedText: String { uuidString.lowercased() }
}
