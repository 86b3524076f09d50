import Foundation
import Synchronization
@_spi(Sync) import KVStore
import KVStoreSync
import Testing
import TestSupport

/// Followers on a hub of their own cluster, which a test stops and starts again.
@Suite(.tags(.postgresql), .skippedByTag) struct SyncFollowTests {
    /// Two stores following: a write on one reaches the other through LISTEN; with the hub
    /// stopped, writes go on locally; once it is back the followers reconnect and catch up.
    @Test(.timeLimit(.minutes(20))) func followersCatchUpAfterTheHubRestarts() async throws {
        let cluster = try await onOwnThread {
            let cluster = try PostgreSQLCluster()
            try HubDatabase.prepare(cluster)
            return cluster
        }
        let database = try await HubDatabase.make(cluster: cluster)
        let stores = try SyncedStores(2)
        let options = SyncEngine.Options(kinds: ["note"], pollInterval: .seconds(1), reconnectDelays: .milliseconds(50) ... .milliseconds(400))
        let engines = try (0..<2).map { SyncEngine(store: stores[$0], hub: try database.configuration(), options: options) }
        for engine in engines { _ = try await engine.sync() }  // the hub's schema, sync enabled
        let disconnects = Counter()
        let followers = engines.map { engine in
            Task { try await engine.follow { if case .disconnected = $0 { disconnects.add() } } }
        }
        defer { followers.forEach { $0.cancel() } }

        try await stores[0].write { try $0.put("before", forKey: "title", of: try RecordRef("note/1")) }
        #expect(await eventually { try stores.records(1)[try RecordRef("note/1")]?["title"] == "before" })

        try await onOwnThread { cluster.stopImmediately() }
        try await stores[0].write { try $0.put("while down", forKey: "title", of: try RecordRef("note/1")) }
        try await stores[1].write { try $0.put("offline", forKey: "body", of: try RecordRef("note/2")) }
        #expect(await eventually { disconnects.value >= 2 })
        try await onOwnThread { try cluster.restart() }

        #expect(await eventually { try stores.records(1)[try RecordRef("note/1")]?["title"] == "while down" })
        #expect(await eventually { try stores.records(0)[try RecordRef("note/2")]?["body"] == "offline" })
        for follower in followers {
            follower.cancel()
            try await follower.value
        }
        #expect(try stores.records(0) == stores.records(1))
    }
}

/// Waits (polling every 20 ms) until `condition` holds; false after 5 minutes, a bound only
/// against a hang (the whole suite in parallel on 2 cores makes every test slow).
func eventually(_ condition: () throws -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(300)
    while ContinuousClock.now < deadline {
        if (try? condition()) == true { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return false
}

/// A count shared with event handlers.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
