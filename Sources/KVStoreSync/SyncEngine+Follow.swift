import Foundation
@_spi(Sync) import KVStore

/// What a follower reports as it goes.
public enum SyncEvent: Sendable, CustomStringConvertible {
    /// A pass ran (after a wake-up from the hub, a local commit, or the poll interval).
    case synced(SyncReport)
    /// The hub was lost or could not be reached; the follower tries again after `retryIn`.
    case disconnected(SyncError, retryIn: Duration)

    /// One line.
    public var description: String {
        switch self {
        case .synced(let report): return report.description
        case .disconnected(let error, let delay):
            let milliseconds = delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000
            return "\(error) (trying again in \(milliseconds) ms)"
        }
    }
}

extension SyncEngine {
    /// Syncs until the calling task is cancelled: a pass at once, then one whenever the hub
    /// announces other stores' changes (`LISTEN kvstore_sync`), the store commits a local change,
    /// or ``Options/pollInterval`` passed. When the hub is lost or unreachable (a transient
    /// ``SyncError``) it reconnects after a delay that doubles up to the last of
    /// ``Options/reconnectDelays``, and catches up. Local reads and writes go on meanwhile.
    ///
    /// - Parameter events: called after each pass and each lost connection.
    /// - Throws: a non-transient error (a store restored or copied, the store's refusal, a
    ///   damaged row); returns when the task is cancelled.
    public func follow(_ events: @escaping @Sendable (SyncEvent) -> Void = { _ in }) async throws {
        let configuration = try configure()
        var delay = options.reconnectDelays.lowerBound
        while !Task.isCancelled {
            do {
                let client = try await HubClient.connect(hub)
                delay = options.reconnectDelays.lowerBound
                do {
                    try await followConnected(client, configuration, events)
                    await client.close()
                } catch {
                    await client.close()
                    throw error
                }
            } catch let error as SyncError where error.isTransient {
                if Task.isCancelled { return }
                events(.disconnected(error, retryIn: delay))
                do { try await Task.sleep(for: delay) } catch { return }
                delay = min(delay * 2, options.reconnectDelays.upperBound)
            } catch is CancellationError {
                return
            }
        }
    }

    /// Passes on one connection until it is lost (throws) or the task is cancelled (returns).
    private func followConnected(_ client: HubClient, _ configuration: SyncConfiguration,
                                 _ events: @escaping @Sendable (SyncEvent) -> Void) async throws {
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let store = store, poll = options.pollInterval, hubName = hub.name
        let start = try await store.read { try $0.lastSequence() }
        try await client.withWakeUps { wakeUps in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await _ in wakeUps { wake.yield() }
                    if !Task.isCancelled { throw SyncError(.connectionLost, hub: hubName, "the hub closed the connection") }
                }
                group.addTask {
                    for try await entry in store.journalUpdates(after: start) where entry.origin == nil { wake.yield() }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try await Task.sleep(for: poll)
                        wake.yield()
                    }
                }
                group.addTask {
                    wake.yield()
                    for await _ in wakes {
                        if Task.isCancelled { return }
                        events(.synced(try await self.pass(client, configuration)))
                    }
                }
                defer { group.cancelAll() }
                do {
                    try await group.next()
                } catch {
                    // Closing ends the wake-ups and any request still waiting on the connection,
                    // so the group's children finish instead of waiting on a dead connection.
                    await client.close()
                    throw error
                }
            }
        }
    }
}
