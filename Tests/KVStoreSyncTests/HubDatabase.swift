import Foundation
import KVStore
import KVStoreSync
import Logging
import PostgresNIO
import Testing
import TestSupport

/// A hub of the test's own: a schema in the shared database `kvstore_hub` of the suites' shared
/// PostgreSQL cluster (or of a cluster given), and a hub user of its own whose only rights are
/// connecting and that schema (made by the administrator, owned by the user) — as a careful
/// operator sets a hub up. Schemas, not databases: `CREATE DATABASE` takes half a second.
final class HubDatabase: Sendable {
    /// The cluster the sync suites share, started on first use and stopped when the tests exit.
    static let sharedCluster = Result { () throws -> PostgreSQLCluster in
        let cluster = try PostgreSQLCluster()
        try prepare(cluster)
        return cluster
    }

    /// The database the hubs' schemas are in.
    static let name = "kvstore_hub"

    /// Makes the database in `cluster`, which only the users given rights may connect to.
    static func prepare(_ cluster: PostgreSQLCluster) throws {
        try cluster.psql("CREATE DATABASE \(name)")
        try cluster.psql("REVOKE ALL ON DATABASE \(name) FROM PUBLIC")
    }

    let cluster: PostgreSQLCluster
    /// The hub's schema.
    let schema: String
    let user: String
    /// Has URL-special characters, so that the URL must percent-encode it.
    let password: String

    /// A hub made on a thread of its own (starting the shared cluster the first time, running
    /// `psql`): see ``init(cluster:userCreatesSchema:)``.
    static func make(cluster: PostgreSQLCluster? = nil, userCreatesSchema: Bool = false) async throws -> HubDatabase {
        try await onOwnThread { try HubDatabase(cluster: cluster, userCreatesSchema: userCreatesSchema) }
    }

    /// - Parameters:
    ///   - cluster: a cluster ``prepare(_:)`` was given (nil: the shared one).
    ///   - userCreatesSchema: the user may create schemas and none is made for it (the client
    ///     creates its own).
    init(cluster: PostgreSQLCluster? = nil, userCreatesSchema: Bool = false) throws {
        self.cluster = try cluster ?? Self.sharedCluster.get()
        let suffix = UUID().uuidString.prefix(8).lowercased()
        schema = "hub_\(suffix)"
        user = "sync_\(suffix)"
        password = "pw:\(suffix)/@?%secret"
        let setup = """
            CREATE ROLE \(user) LOGIN PASSWORD '\(password)';
            GRANT CONNECT\(userCreatesSchema ? ", CREATE" : "") ON DATABASE \(Self.name) TO \(user);
            \(userCreatesSchema ? "" : "CREATE SCHEMA \(schema) AUTHORIZATION \(user);")
            """
        try self.cluster.psql(setup, database: Self.name)
    }

    /// The hub URL, password included (percent-encoded), for the test's schema (unless
    /// `options` names one) and with `options` (`sslmode=…&…`).
    func url(_ options: String = "", password: String? = nil) -> String {
        let allowed = CharacterSet.alphanumerics
        let encoded = (password ?? self.password).addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        let query = options.contains("schema=") ? options : (["schema=\(schema)", options].filter { !$0.isEmpty }.joined(separator: "&"))
        return "postgres://\(user):\(encoded)@127.0.0.1:\(cluster.port)/\(Self.name)?" + query
    }

    /// The hub as errors name it.
    var hubName: String { "postgres://\(user)@127.0.0.1:\(cluster.port)/\(Self.name)" }

    func configuration(_ options: String = "") throws -> HubConfiguration {
        try HubConfiguration(url: url(options), environment: [:])
    }

    /// A client, the schema ready.
    func connect(_ options: String = "", logger: Logger? = nil) async throws -> HubClient {
        try await HubClient.connect(try configuration(options), logger: logger)
    }

    /// Runs `body` with a client, closed after it (whether it returns or throws).
    @discardableResult
    func withClient<T>(_ options: String = "", _ body: (HubClient) async throws -> T) async throws -> T {
        let hub = try await connect(options)
        do {
            let result = try await body(hub)
            await hub.close()
            return result
        } catch {
            await hub.close()
            throw error
        }
    }

    /// Uploads `batch` with a client of its own, expecting the hub to refuse it: the error, nil
    /// (and a failed expectation) when it took it.
    func refusedUpload(_ batch: [HubChange], from store: UUID) async throws -> SyncError? {
        try await withClient { hub in await #expect(throws: SyncError.self) { try await hub.upload(batch, from: store) } }
    }

    /// Runs SQL as the superuser in the database (on a thread of its own); returns psql's rows,
    /// one a line.
    @discardableResult
    func admin(_ sql: String) async throws -> String {
        let cluster = cluster
        return try await onOwnThread { try cluster.psql(sql, database: Self.name) }
    }

    /// A plain postgres-nio connection as the hub user, for transactions a test holds open.
    func rawConnection() async throws -> PostgresConnection {
        let configuration = PostgresConnection.Configuration(host: "127.0.0.1", port: cluster.port, username: user,
                                                             password: password, database: Self.name, tls: .disable)
        return try await PostgresConnection.connect(configuration: configuration, id: 2, logger: Logger(label: "test"))
    }
}
