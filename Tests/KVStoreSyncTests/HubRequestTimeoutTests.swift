import Foundation
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    /// A hub that answers the login and then stops answering (its server process for the
    /// connection is stopped with SIGSTOP): a request fails with the configured time-out instead
    /// of waiting forever, and the connection is closed.
    @Suite struct RequestTimeoutTests {
        @Test(.timeLimit(.minutes(1))) func aHubThatStopsAnsweringFailsTheRequest() async throws {
            let database = try await HubDatabase.make()
            let store = UUID()
            let hub = try await database.connect("request_timeout=1")
            try await hub.upload(try sampleChanges(1, from: store), from: store)
            let pid = try await database.backendProcess()
            kill(pid, SIGSTOP)
            defer { kill(pid, SIGCONT) }
            let error = await #expect(throws: SyncError.self) { try await hub.upload(try sampleChanges(2, from: store), from: store) }
            #expect(error?.code == .connectionLost && error?.isTransient == true)
            #expect(error?.message == "the hub did not answer within 1 s (request_timeout); the connection was closed")
            let after = await #expect(throws: SyncError.self) { try await hub.stores() }
            #expect(after?.code == .connectionLost)
            await hub.close()
        }
    }
}

extension HubDatabase {
    /// The pid of the server process serving the hub user's one connection.
    func backendProcess() async throws -> Int32 {
        let answer = try await admin("SELECT pid FROM pg_stat_activity WHERE usename = '\(user)'")
        let pids = answer.split(whereSeparator: \.isNewline).compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
        return try #require(pids.count == 1 ? pids.first : nil, "connections of \(user): \(answer)")
    }
}
