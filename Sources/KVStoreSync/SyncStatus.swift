import Foundation
@_spi(Sync) import KVStore

/// Where a store's sync stands, read from the store alone (no hub needed): what `kvstore sync
/// --status` and `kvstore stat` print.
public struct SyncStatus: Sendable, Equatable {
    /// The kinds the store syncs; nil: every kind.
    public let kinds: Set<String>?
    /// The identity of the hub the cursors belong to; nil before the first sync.
    public let hub: String?
    /// The last local journal sequence the hub has committed.
    public let uploadedThrough: UInt64
    /// The journal's last sequence.
    public let lastSequence: UInt64
    /// Local changes not uploaded yet.
    public let pendingUploads: Int
    /// Where downloading resumes (`TXID:ID`; `start` before the first download).
    public let downloadCursor: String
    /// The hub's clock minus this machine's at the last sync, in milliseconds.
    public let clockOffsetMilliseconds: Int64?
    /// Whether new stamps use the hub's time (this machine's clock is over a minute ahead).
    public let clockClamped: Bool

    /// The status of `store`; nil when it does not sync.
    public static func read(_ store: Store) throws -> SyncStatus? {
        try store.read { txn in
            guard let configuration = try txn.syncConfiguration() else { return nil }
            let cursors = try txn.syncCursors()
            let uploaded = max(cursors?.uploadedThrough ?? 0, try txn.syncUploadStart())
            // Past a forced truncation of entries never uploaded: they are gone, not pending.
            let pendingFrom = max(uploaded, try txn.oldestCoveredCursor())
            let download = cursors.map { String(decoding: $0.download, as: UTF8.self) } ?? ""
            return SyncStatus(kinds: configuration.kinds, hub: cursors?.hub, uploadedThrough: uploaded,
                              lastSequence: try txn.lastSequence(), pendingUploads: try txn.localChanges(after: pendingFrom).changes.count,
                              downloadCursor: download.isEmpty ? "start" : download,
                              clockOffsetMilliseconds: cursors?.hubOffsetMilliseconds, clockClamped: try txn.clockIsClamped())
        }
    }

    /// Labelled rows: kinds, hub, uploaded, pending, download cursor, clock.
    public var rows: [(label: String, text: String)] {
        [
            ("sync kinds", kinds.map { $0.sorted().joined(separator: ", ") } ?? "all"),
            ("hub", hub ?? "none yet (never synced)"),
            ("uploaded through", "\(uploadedThrough) of \(lastSequence)"),
            ("pending uploads", "\(pendingUploads)"),
            ("download cursor", downloadCursor),
            ("clock offset", clockText),
        ]
    }

    private var clockText: String {
        guard let offset = clockOffsetMilliseconds else { return "not measured" }
        return "\(offset) ms (hub minus this machine)" + (clockClamped ? ", clamped: new stamps use the hub's time" : "")
    }
}
