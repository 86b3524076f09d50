import Logging
import NIOSSL
import PostgresNIO

/// Opens the connection a ``HubClient`` uses: TLS as the URL asks, and a deadline on connecting
/// and authenticating together (a server that accepts the connection and never answers would
/// otherwise hold the caller forever).
struct HubConnector {
    let configuration: HubConfiguration
    let logger: Logger

    func connect() async throws(SyncError) -> PostgresConnection {
        let settings = try postgresConfiguration()
        let logger = logger
        let timeout = configuration.connectTimeout
        do {
            return try await withThrowingTaskGroup(of: PostgresConnection?.self) { group in
                group.addTask { try await PostgresConnection.connect(configuration: settings, id: 1, logger: logger) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                // The loser: a connection made as the deadline passed is closed, not leaked.
                while let late = try? await group.next() { try? await late?.close() }
                guard let first else { throw HubFailure.timedOut }
                return first
            }
        } catch {
            throw HubFailure.map(error, hub: configuration.name, host: configuration.host, port: configuration.port,
                                 timeout: timeout)
        }
    }

    private func postgresConfiguration() throws(SyncError) -> PostgresConnection.Configuration {
        var settings = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.user,
            password: configuration.password?.value, database: configuration.database, tls: try tls())
        settings.options.connectTimeout = .nanoseconds(Int64(configuration.connectTimeout.components.seconds) * 1_000_000_000)
        settings.options.additionalStartupParameters = [("application_name", "kvstore")]
        return settings
    }

    private func tls() throws(SyncError) -> PostgresConnection.Configuration.TLS {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch configuration.tls {
        case .disable, .allow: return .disable
        case .prefer, .require: tls.certificateVerification = .none
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        case .verifyFull: tls.certificateVerification = .fullVerification
        }
        if let file = configuration.rootCertificateFile { tls.trustRoots = .file(file) }
        do {
            let context = try NIOSSLContext(configuration: tls)
            return configuration.tls == .prefer ? .prefer(context) : .require(context)
        } catch {
            let source = configuration.rootCertificateFile.map { "the CA file \($0)" } ?? "the system's CAs"
            throw SyncError(.configuration, hub: configuration.name, "cannot set up TLS with \(source): \(error)")
        }
    }
}
