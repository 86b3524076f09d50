import Foundation
import KVStoreSync
import Logging
import Testing
import TestSupport

extension HubTests {
    @Suite struct LoginTests {
        @Test func aWrongPasswordIsRefusedWithoutShowingIt() async throws {
            let database = try await HubDatabase.make()
            let wrong = "wrong-\(UUID().uuidString)"
            let hub = try HubConfiguration(url: database.url(password: wrong), environment: [:])
            let error = await #expect(throws: SyncError.self) { try await HubClient.connect(hub) }
            #expect(error?.code == .authenticationFailed)
            #expect(error?.description == "\(database.hubName): the hub refused the login: "
                        + "password authentication failed for user \"\(database.user)\"")
            #expect(error.map { !String(reflecting: $0).contains(wrong) } == true)
        }

        @Test func noPasswordWhereOneIsNeededIsSaidSo() async throws {
            let database = try await HubDatabase.make()
            let hub = try HubConfiguration(url: "postgres://\(database.user)@127.0.0.1:\(database.cluster.port)/\(HubDatabase.name)",
                                           environment: [:])
            let error = await #expect(throws: SyncError.self) { try await HubClient.connect(hub) }
            #expect(error?.code == .authenticationFailed)
            #expect(error?.message == "the hub asks for a password and none was given (URL, password file or PGPASSWORD)")
        }

        /// Everything postgres-nio logs, at its most detailed, while connecting, uploading,
        /// downloading and failing to log in: the password never appears.
        @Test func thePasswordIsNeverLogged() async throws {
            let database = try await HubDatabase.make()
            let log = LogRecorder()
            var logger = Logger(label: "test") { _ in log }
            logger.logLevel = .trace
            let store = UUID()
            try await HubClient.connect(try database.configuration(), logger: logger).close()
            let hub = try await HubClient.connect(try database.configuration(), logger: logger)
            try await hub.upload(try sampleChanges(2, from: store), from: store)
            _ = try await hub.download(after: .start, excluding: UUID())
            await hub.close()
            _ = try? await HubClient.connect(try HubConfiguration(url: database.url(password: "bad"), environment: [:]), logger: logger)
            #expect(!log.lines.isEmpty)
            #expect(log.lines.allSatisfy { !$0.contains(database.password) })
        }
    }
}

/// Keeps every log message with its metadata, as text.
final class LogRecorder: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var lines: [String] { lock.withLock { recorded } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let line = "\(event.level) \(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })"
        lock.withLock { recorded.append(line) }
    }
}
