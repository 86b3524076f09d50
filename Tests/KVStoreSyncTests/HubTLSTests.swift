import Foundation
import KVStoreSync
import Testing
import TestSupport

/// A cluster of its own that takes TLS connections only (`hostssl`): the client uses TLS as the
/// URL's sslmode asks, and checks the certificate when asked to.
@Suite(.tags(.postgresql, .subprocess), .skippedByTag) struct HubTLSTests {
    @Test func tlsIsUsedAsTheURLAsks() async throws {
        let directory = try TemporaryDirectory()
        let certificates = try await onOwnThread { try TestCertificates(in: directory.path) }
        let cluster = try await onOwnThread {
            let cluster = try PostgreSQLCluster(
                settings: ["ssl": "on", "ssl_cert_file": "'server.pem'", "ssl_key_file": "'server.key'"],
                hostAuthentication: ["hostssl all all 127.0.0.1/32 scram-sha-256"],
                files: ["server.pem": certificates.server.certificate, "server.key": certificates.server.key])
            try HubDatabase.prepare(cluster)
            return cluster
        }
        let database = try await HubDatabase.make(cluster: cluster)

        let encrypted = try await database.withClient("sslmode=require") { _ in
            try await database.admin("SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.usename = '\(database.user)'")
        }
        #expect(encrypted == "t\n")
        try await database.withClient("sslmode=verify-full&sslrootcert=\(certificates.ca.certificate)") { _ in }

        let plain = await #expect(throws: SyncError.self) { try await database.connect("sslmode=disable") }
        #expect(plain?.code == .authenticationFailed)
        #expect(plain?.message.hasPrefix("the hub refused the login: no pg_hba.conf entry for host \"127.0.0.1\"") == true)
        let untrusted = await #expect(throws: SyncError.self) {
            try await database.connect("sslmode=verify-full&sslrootcert=\(certificates.foreignCA.certificate)")
        }
        #expect(untrusted?.code == .tlsFailed)
        #expect(untrusted?.message.hasPrefix("TLS with the hub at 127.0.0.1:\(cluster.port) failed: handshake failed") == true,
                "\(String(describing: untrusted))")
    }
}
