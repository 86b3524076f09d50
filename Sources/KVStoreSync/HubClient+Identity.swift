import Foundation
import PostgresNIO

/// The hub's identity and clock, as one request measures them.
public struct HubProbe: Sendable, Equatable {
    /// The hub's identity, made with its schema: a store's cursors belong to one hub.
    public let identity: UUID
    /// The hub's clock minus this machine's, in milliseconds, taken at the middle of the round
    /// trip (off by at most half of it).
    public let offsetMilliseconds: Int64
}

extension HubClient {
    /// The hub's identity (a uuid made with its schema, the same for every client of the hub).
    public func identity() async throws(SyncError) -> UUID {
        try await probe().identity
    }

    /// Reads the hub's identity and its clock (`clock_timestamp()`), and measures the offset of
    /// the hub's clock from this machine's.
    public func probe() async throws(SyncError) -> HubProbe {
        try await probe(localClock: { Date() })
    }

    /// ``probe()`` against `localClock`, the clock of the store that syncs (its
    /// `Store.Options.wallClock`).
    func probe(localClock: () -> Date) async throws(SyncError) -> HubProbe {
        let before = localClock()
        let rows = try await rows(PostgresQuery(unsafeSQL: "SELECT id, clock_timestamp() FROM \(tables.hub)"))
        let after = localClock()
        guard rows.count == 1, let (identity, hubNow) = try? rows[0].decode((UUID, Date).self) else {
            throw SyncError(.refused, hub: configuration.name, "the hub's table \(tables.schema).hub must hold exactly one row (it holds \(rows.count))")
        }
        let middle = before.addingTimeInterval(after.timeIntervalSince(before) / 2)
        return HubProbe(identity: identity, offsetMilliseconds: Int64((hubNow.timeIntervalSince(middle) * 1000).rounded()))
    }
}
