import Foundation
import PostgresNIO

/// A sign that changes arrived at the hub: read them with ``HubClient/download(after:excluding:kinds:limit:)``.
public struct HubWakeUp: Sendable, Equatable {
    /// The store that uploaded them (nil when the notification names none).
    public let origin: UUID?
}

/// The wake-ups of the hub's `kvstore_sync` notification channel, one per upload that stored
/// something new (several may arrive as one download's worth). It ends, or throws
/// ``SyncError``, when the connection is lost.
public struct HubWakeUps: AsyncSequence, Sendable {
    public typealias Element = HubWakeUp
    let notifications: PostgresNotificationSequence
    let hub: HubConfiguration

    public func makeAsyncIterator() -> Iterator { Iterator(base: notifications.makeAsyncIterator(), hub: hub) }

    /// Reads the next wake-up.
    public struct Iterator: AsyncIteratorProtocol {
        var base: PostgresNotificationSequence.AsyncIterator
        let hub: HubConfiguration

        /// The next wake-up; nil once the connection closed.
        /// - Throws: ``SyncError`` when the connection broke.
        public mutating func next() async throws -> HubWakeUp? {
            do {
                return try await base.next().map { HubWakeUp(origin: UUID(uuidString: $0.payload)) }
            } catch {
                throw HubFailure.map(error, hub: hub.name, host: hub.host, port: hub.port)
            }
        }
    }
}

extension HubClient {
    /// Listens on the hub's `kvstore_sync` channel while `body` runs (`LISTEN` is in effect
    /// before `body` starts: download after that, and no upload committed later goes unnoticed).
    ///
    /// ```swift
    /// try await hub.withWakeUps { wakeUps in
    ///     try await catchUp()
    ///     for try await _ in wakeUps { try await catchUp() }
    /// }
    /// ```
    public func withWakeUps<Result>(_ body: (HubWakeUps) async throws -> Result) async throws -> Result {
        let configuration = configuration
        do {
            return try await connection.listen(on: "kvstore_sync") { notifications in
                try await body(HubWakeUps(notifications: notifications, hub: configuration))
            }
        } catch {
            throw HubFailure.map(error, hub: configuration.name, host: configuration.host, port: configuration.port)
        }
    }
}
