import Foundation
import KVStoreSync
import Testing
import TestSupport

/// A hub server that stops under a connected client and starts again on the same port.
@Suite(.tags(.postgresql), .skippedByTag) struct HubRestartTests {
    @Test func aStoppedHubIsATransientErrorAndARestartedOneServesAgain() async throws {
        let cluster = try await onOwnThread {
            let cluster = try PostgreSQLCluster()
            try HubDatabase.prepare(cluster)
            return cluster
        }
        let database = try await HubDatabase.make(cluster: cluster)
        let store = UUID()
        let hub = try await database.connect()
        try await hub.upload(try sampleChanges(2, from: store), from: store)

        try await onOwnThread { cluster.stopImmediately() }
        let lost = await #expect(throws: SyncError.self) { try await hub.upload(try sampleChanges(3, from: store), from: store) }
        #expect(lost?.isTransient == true, "\(String(describing: lost))")
        await hub.close()
        let down = await #expect(throws: SyncError.self) { try await database.connect() }
        #expect(down?.message == "cannot reach the hub at 127.0.0.1:\(cluster.port): connection refused")

        try await onOwnThread { try cluster.restart() }
        // The two changes acknowledged before the stop survived it.
        let again = try await database.withClient { hub in try await hub.upload(try sampleChanges(3, from: store), from: store) }
        #expect(again.newChanges == 1)
    }
}
