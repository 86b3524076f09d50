import Logging
import PostgresNIO

/// One connection to the hub: uploads a store's changes, downloads the others', registers the
/// store, and wakes followers when changes arrive.
///
/// ```swift
/// let hub = try await HubClient.connect(try HubConfiguration(url: "postgres://sync@db.example/app"))
/// let sent = try await hub.upload(changes, from: storeID)
/// let page = try await hub.download(after: cursor, excluding: storeID, limit: 1000)
/// await hub.close()
/// ```
///
/// ``connect(_:logger:)`` creates the hub's schema when it is absent and migrates an older one.
/// Each request is one SQL statement (one transaction), so requests from several tasks may share a
/// client; they run one after another on its connection.
public final class HubClient: Sendable {
    /// The hub this client is connected to.
    public let configuration: HubConfiguration
    let connection: PostgresConnection
    let logger: Logger
    let tables: HubTables

    init(configuration: HubConfiguration, connection: PostgresConnection, logger: Logger) {
        self.configuration = configuration
        self.connection = connection
        self.logger = logger
        self.tables = HubTables(schema: configuration.schema)
    }

    /// Connects, authenticates, and creates or migrates the hub's schema.
    /// - Parameters:
    ///   - configuration: the hub's address, credentials, schema and time-outs.
    ///   - logger: where postgres-nio logs (nothing by default); the password never appears there.
    /// - Throws: ``SyncError``: ``SyncError/Code/unreachable`` naming host and port (also when the
    ///   server does not answer within ``HubConfiguration/connectTimeout``),
    ///   ``SyncError/Code/authenticationFailed``, ``SyncError/Code/tlsFailed``,
    ///   ``SyncError/Code/schemaTooNew``.
    public static func connect(_ configuration: HubConfiguration, logger: Logger? = nil) async throws(SyncError) -> HubClient {
        let logger = logger ?? Logger(label: "kvstore.sync", factory: { _ in SwiftLogNoOpLogHandler() })
        let connection = try await HubConnector(configuration: configuration, logger: logger).connect()
        let client = HubClient(configuration: configuration, connection: connection, logger: logger)
        do {
            try await HubSchema(client: client).prepare()
        } catch {
            await client.close()
            throw error
        }
        return client
    }

    /// Closes the connection (requests still running fail with ``SyncError/Code/connectionLost``).
    public func close() async {
        try? await connection.close()
    }

    /// Runs one statement and collects its rows, mapping failures to ``SyncError``. A statement
    /// not answered within ``HubConfiguration/requestTimeout`` closes the connection (its state
    /// is unknown: an answer may still come) and fails with ``SyncError/Code/connectionLost``.
    func rows(_ query: PostgresQuery) async throws(SyncError) -> [PostgresRow] {
        // postgres-nio drops a query written to a connection already closed (the server went
        // away while it was idle) without ever answering it.
        guard !connection.isClosed else { throw SyncError(.connectionLost, hub: configuration.name, "the connection to the hub was lost") }
        let connection = connection, logger = logger, timeout = configuration.requestTimeout
        do {
            return try await withThrowingTaskGroup(of: [PostgresRow]?.self) { group in
                group.addTask {
                    var rows: [PostgresRow] = []
                    for try await row in try await connection.query(query, logger: logger) { rows.append(row) }
                    return rows
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let rows = try await group.next() ?? nil else {
                    // The query waits for an answer that may never come: closing ends it.
                    try? await connection.close()
                    throw HubFailure.timedOut
                }
                return rows
            }
        } catch is HubFailure.TimedOut {
            throw SyncError(.connectionLost, hub: configuration.name,
                            "the hub did not answer within \(timeout.components.seconds) s (request_timeout); the connection was closed")
        } catch {
            throw HubFailure.map(error, hub: configuration.name, host: configuration.host, port: configuration.port)
        }
    }
}

/// The hub's tables, qualified by the schema (a checked lowercase name, quoted in case it is a
/// keyword).
struct HubTables: Sendable {
    let schema: String
    var quotedSchema: String { "\"\(schema)\"" }
    var changes: String { "\(quotedSchema).changes" }
    var stores: String { "\(quotedSchema).stores" }
    var hub: String { "\(quotedSchema).hub" }
    var schemaVersion: String { "\(quotedSchema).schema_version" }
}
