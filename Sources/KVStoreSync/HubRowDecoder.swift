import Foundation
import KVStore
import PostgresNIO

/// Reads a row of the download statement into a ``HubRow``, checking every field: a row written
/// by hand, by another program or by a newer build is refused with the row's id and the problem,
/// never applied half-understood.
struct HubRowDecoder {
    private let cells: PostgresRandomAccessRow
    private let hub: String

    init(row: PostgresRow, hub: String) {
        cells = PostgresRandomAccessRow(row)
        self.hub = hub
    }

    /// The oldest transaction still running when the statement read (column 0).
    func horizon() throws(SyncError) -> UInt64 {
        guard let text = try? cells[0].decode(String.self), let horizon = UInt64(text) else {
            throw SyncError(.refused, hub: hub, "the hub answered the download without its snapshot horizon")
        }
        return horizon
    }

    /// The change, or nil for the row that says the page is empty.
    func change() throws(SyncError) -> HubRow? {
        guard let id = try optional(1, "id", as: Int64.self, row: nil) else { return nil }
        func column<T: PostgresDecodable>(_ index: Int, _ name: String, as type: T.Type) throws(SyncError) -> T {
            guard let value = try? cells[index].decode(T.self) else { throw damaged(id, "its \(name) is missing or not a \(T.self)") }
            return value
        }
        guard let transaction = UInt64(try column(2, "txid", as: String.self)) else { throw damaged(id, "its txid is not an xid8") }
        let sequence = try column(4, "origin_seq", as: Int64.self)
        guard sequence >= 0 else { throw damaged(id, "its origin_seq \(sequence) is negative") }
        let wall = try column(5, "stamp_wall", as: Int64.self)
        let counter = try column(6, "stamp_counter", as: Int32.self)
        guard wall >= 0, UInt64(wall) <= HubStamp.maxWall else { throw damaged(id, "its stamp_wall \(wall) is not from 0 to 2^48-1") }
        guard let counter = UInt16(exactly: counter) else { throw damaged(id, "its stamp_counter \(counter) is not from 0 to 65535") }
        let (kindText, idText) = (try column(7, "kind", as: String.self), try column(8, "record_id", as: String.self))
        let record: RecordRef
        do {
            record = try RecordRef(kind: kindText, id: idText)
        } catch {
            throw damaged(id, error.description)
        }
        let changeText = try column(10, "change", as: String.self)
        guard let kind = HubChange.Change(rawValue: changeText) else {
            throw damaged(id, "its change '\(changeText)' is not one of set, remove, insert, delete")
        }
        let change = HubChange(origin: try column(3, "origin", as: UUID.self), originSequence: UInt64(sequence),
                               stamp: HubStamp(wall: UInt64(wall), counter: counter), record: record,
                               key: try optional(9, "key", as: String.self, row: id), change: kind, value: try value(id))
        if let problem = change.shapeProblem { throw damaged(id, problem) }
        return HubRow(cursor: HubCursor(transaction: transaction, id: id), change: change)
    }

    private func value(_ id: Int64) throws(SyncError) -> Value? {
        guard let text = try optional(11, "value", as: String.self, row: id) else { return nil }
        do {
            return try HubValueText.decode(text)
        } catch {
            throw damaged(id, error.description)
        }
    }

    /// A column that may be NULL.
    private func optional<T: PostgresDecodable>(_ index: Int, _ name: String, as type: T.Type,
                                                row id: Int64?) throws(SyncError) -> T? where T._DecodableType == T {
        do {
            return try cells[index].decode(T?.self)
        } catch {
            throw damaged(id, "its \(name) is not a \(T.self)")
        }
    }

    private func damaged(_ id: Int64?, _ problem: String) -> SyncError {
        SyncError(.damagedRow, hub: hub, "hub row \(id.map(String.init) ?? "?") is damaged: \(problem)", row: id)
    }
}
