import Foundation
import PostgresNIO

/// A store the hub knows (a row of its `stores` table).
public struct HubStore: Sendable, Equatable {
    /// The store's id.
    public let id: UUID
    /// The name it registered with, if any.
    public let name: String?
    /// When it first registered or uploaded.
    public let firstSeen: Date?
    /// When it last registered or uploaded.
    public let lastSeen: Date?
    /// The highest journal sequence of its own it has uploaded.
    public let uploadedThrough: UInt64?
}

extension HubClient {
    /// Registers the store (or renames it), and marks it seen now.
    @discardableResult
    public func register(_ store: UUID, name: String) async throws(SyncError) -> HubStore {
        let rows = try await rows(PostgresQuery(unsafeSQL: """
            INSERT INTO \(tables.stores) AS s (store_id, name, first_seen, last_seen)
            VALUES ($1, $2, clock_timestamp(), clock_timestamp())
            ON CONFLICT (store_id) DO UPDATE SET name = excluded.name, last_seen = excluded.last_seen
            RETURNING \(storeColumns)
            """, binds: bindings(store, name)))
        guard let registered = try rows.first.map(decodeStore) else {
            throw SyncError(.refused, hub: configuration.name, "the hub answered the registration unexpectedly")
        }
        return registered
    }

    /// The stores the hub knows, by id.
    public func stores() async throws(SyncError) -> [HubStore] {
        let rows = try await rows(PostgresQuery(unsafeSQL: "SELECT \(storeColumns) FROM \(tables.stores) ORDER BY store_id"))
        return try rows.map(decodeStore)
    }

    /// The hub's row for `store`; nil when it never registered or uploaded.
    public func store(_ store: UUID) async throws(SyncError) -> HubStore? {
        var binds = PostgresBindings()
        binds.append(store)
        let rows = try await rows(PostgresQuery(unsafeSQL: "SELECT \(storeColumns) FROM \(tables.stores) WHERE store_id = $1", binds: binds))
        return try rows.first.map(decodeStore)
    }

    private var storeColumns: String { "store_id, name, first_seen, last_seen, uploaded_through" }

    private func bindings(_ store: UUID, _ name: String) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(store)
        binds.append(name)
        return binds
    }

    private func decodeStore(_ row: PostgresRow) throws(SyncError) -> HubStore {
        guard let (id, name, first, last, through) = try? row.decode((UUID, String?, Date?, Date?, Int64?).self) else {
            throw SyncError(.refused, hub: configuration.name, "the hub's stores table has a row this build cannot read")
        }
        return HubStore(id: id, name: name, firstSeen: first, lastSeen: last, uploadedThrough: through.map { UInt64(max(0, $0)) })
    }
}
