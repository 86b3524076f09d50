import Foundation
import PostgresNIO

/// A change read from the hub, with its place there.
public struct HubRow: Sendable, Equatable {
    /// The row's position: store it once the change is applied to read on after it.
    public let cursor: HubCursor
    /// The change.
    public let change: HubChange
}

/// One page of changes read from the hub.
public struct HubPage: Sendable, Equatable {
    /// The changes, in the hub's commit order.
    public let rows: [HubRow]
    /// Where to read on from once all of ``rows`` are applied: after the last row, or further
    /// when the page was not full (past rows of the reader's own store and kinds left out, up to
    /// the oldest transaction still running).
    public let cursor: HubCursor
    /// Whether the page holds everything committed after the cursor (it was not full).
    public let isCaughtUp: Bool
}

extension HubClient {
    /// Reads the changes other stores uploaded after `cursor`, in commit order, from transactions
    /// that have all finished (see ``HubCursor``).
    ///
    /// - Parameters:
    ///   - cursor: where the last page ended (``HubCursor/start`` the first time).
    ///   - store: the reading store: its own changes are left out.
    ///   - kinds: only changes to records of these kinds (nil: all).
    ///   - limit: the most rows in the page.
    /// - Throws: ``SyncError``; ``SyncError/Code/damagedRow`` naming the row id and the problem
    ///   when a row cannot be read as a change (the page is then not returned);
    ///   ``SyncError/Code/cursorAhead`` when `cursor` is past every transaction of the hub.
    public func download(after cursor: HubCursor, excluding store: UUID, kinds: Set<String>? = nil,
                         limit: Int = 1000) async throws(SyncError) -> HubPage {
        var binds = PostgresBindings()
        binds.append(String(cursor.transaction))
        binds.append(cursor.id)
        binds.append(store)
        binds.append(max(1, limit))
        if let kinds { binds.append(kinds.sorted()) }
        let rows = try await rows(PostgresQuery(unsafeSQL: downloadSQL(filteringKinds: kinds != nil), binds: binds))
        var page: [HubRow] = []
        var horizon = cursor
        let hub = configuration.name  // made once, not per row: it percent-encodes
        for row in rows {
            let decoder = HubRowDecoder(row: row, hub: hub)
            horizon = HubCursor(transaction: try decoder.horizon(), id: 0)
            // On one server the horizon only grows, and every cursor is at or below one it gave.
            guard horizon.transaction >= cursor.transaction else {
                throw SyncError(.cursorAhead, hub: hub,
                                "the download cursor \(cursor) is ahead of the hub's transactions (the oldest still running is "
                                    + "\(horizon.transaction)): the hub was restored or replaced; download again from the start")
            }
            if let decoded = try decoder.change() { page.append(decoded) }
        }
        let isCaughtUp = page.count < max(1, limit)
        // A page that is not full saw every finished row: nothing can appear before the horizon.
        let next = isCaughtUp ? max(cursor, page.last?.cursor ?? cursor, horizon) : page.last?.cursor ?? cursor
        return HubPage(rows: page, cursor: next, isCaughtUp: isCaughtUp)
    }

    private func downloadSQL(filteringKinds: Bool) -> String {
        """
        WITH horizon AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
        SELECT horizon.xmin::text, c.id, c.txid::text, c.origin, c.origin_seq, c.stamp_wall, c.stamp_counter, c.kind,
               c.record_id, c.key, c.change, c.value::text
        FROM horizon LEFT JOIN LATERAL (
            SELECT * FROM \(tables.changes)
            WHERE (txid, id) > ($1::text::xid8, $2::int8) AND txid < horizon.xmin AND origin <> $3::uuid
                \(filteringKinds ? "AND kind = ANY($5::text[])" : "")
            ORDER BY txid, id
            LIMIT $4
        ) AS c ON true
        ORDER BY c.txid, c.id
        """
    }
}
