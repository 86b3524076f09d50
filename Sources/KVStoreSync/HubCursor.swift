/// A position in the hub's changes in commit order: the transaction id (`txid`) and row `id` of
/// the last change read, or past which nothing more can appear.
///
/// Row ids (a sequence) become visible out of commit order, so a reader must not take "id above
/// the last one" — a transaction holding a lower id may commit later. The hub is read in
/// `(txid, id)` order, and only rows of transactions older than every transaction still running
/// (`txid < pg_snapshot_xmin(pg_current_snapshot())`): no row can appear later before such a
/// cursor. A long upload holds readers back; it is never skipped.
///
/// Store it with the changes applied from the hub, and read on from it.
public struct HubCursor: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The transaction id (PostgreSQL `xid8`) of the position.
    public var transaction: UInt64
    /// The row id within that transaction (0: before its first row).
    public var id: Int64

    /// Before every change.
    public static let start = HubCursor(transaction: 0, id: 0)

    /// A position.
    public init(transaction: UInt64, id: Int64) {
        self.transaction = transaction
        self.id = id
    }

    /// Reads ``description``'s form, `TXID:ID`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let transaction = UInt64(parts[0]), let id = Int64(parts[1]) else { return nil }
        self.init(transaction: transaction, id: id)
    }

    /// `TXID:ID`.
    public var description: String { "\(transaction):\(id)" }

    /// In the hub's commit order: by transaction, then id.
    public static func < (lhs: HubCursor, rhs: HubCursor) -> Bool { (lhs.transaction, lhs.id) < (rhs.transaction, rhs.id) }
}
