import Foundation
import KVStore
@testable import KVStoreNetwork
import Testing
import TestSupport

/// Replication over real TLS on loopback, with tokens and client certificates; and every way a
/// connection is refused: one line on each side, nothing replicated.
@Suite(.tags(.network, .subprocess), .skippedByTag) struct TLSReplicationTests {
    @Test func theRightTokenOverTLSReplicatesAndFollows() throws {
        let fixture = try TLSFixture()
        let server = try fixture.server()
        defer { server.stop() }

        let following = FollowingClient(try fixture.client(of: server, follow: true))
        #expect(following.waitForCheckpoint(5))
        try commitItems(20, startingAt: 5, into: fixture.source)

        #expect(following.waitForCheckpoint(25))
        #expect(following.stop().isEmpty)
        #expect(try sameRecords(fixture.source, Store(path: fixture.directory.path("replica"))))
        #expect(fixture.log.all.allSatisfy { !$0.hasPrefix("refused") })
    }

    @Test func aSnapshotGoesOverTLSToo() throws {
        let fixture = try TLSFixture()
        let server = try fixture.server()
        defer { server.stop() }
        var options = try fixture.options()
        options.startFromSnapshot = true

        let summary = try JournalClient(host: server.host, port: server.port, replica: fixture.directory.path("replica"), options: options).run()

        #expect(summary.reseeds == 1 && summary.appliedSequence == 5)
        #expect(try sameRecords(fixture.source, Store(path: fixture.directory.path("replica"))))
    }

    @Test func aClientCertificateSignedByTheClientCAIsEnoughWithoutAToken() throws {
        let fixture = try TLSFixture()
        let server = try fixture.server(.init(clientCA: true, token: false))
        defer { server.stop() }

        let summary = try fixture.client(of: server, .init(identity: \.client, token: nil)).run()

        #expect(summary.appliedSequence == 5)
    }

    @Test func aTokenOverPlainTCPWorksOnLoopback() throws {
        let fixture = try TLSFixture()
        let server = try fixture.server(.init(identity: nil))
        defer { server.stop() }

        #expect(try fixture.client(of: server, .init(tls: false)).run().appliedSequence == 5)
    }

    /// A way to be refused: how the server and the client are set up, what each says.
    enum Refusal: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case wrongToken, noToken, plainClientToTLSServer, tlsClientToPlainServer
        case expiredServerCertificate, foreignServerCertificate, hostnameMismatch
        case clientCertificateMissing, expiredClientCertificate, foreignClientCertificate

        var testDescription: String { rawValue }

        var server: TLSFixture.ServerSecurity {
            switch self {
            case .tlsClientToPlainServer: .init(identity: nil)
            case .expiredServerCertificate: .init(identity: \.expiredServer)
            case .foreignServerCertificate: .init(identity: \.foreignServer)
            case .hostnameMismatch: .init(identity: \.otherHost)
            case .clientCertificateMissing, .expiredClientCertificate, .foreignClientCertificate: .init(clientCA: true, token: false)
            default: .init()
            }
        }

        var client: TLSFixture.ClientSecurity {
            switch self {
            case .wrongToken: .init(token: "a-wrong-token-0123456789")
            case .noToken: .init(token: nil)
            case .plainClientToTLSServer: .init(tls: false)
            case .clientCertificateMissing: .init(token: nil)
            case .expiredClientCertificate: .init(identity: \.expiredClient, token: nil)
            case .foreignClientCertificate: .init(identity: \.foreignClient, token: nil)
            default: .init()
            }
        }

        /// The client's error: its code and the message after `tcp://HOST:PORT: `.
        var clientSays: (ReplicationConnectionError.Code, String) {
            switch self {
            case .wrongToken: (.refused, "wrong token")
            case .noToken: (.refused, "no token: this server requires one")
            case .plainClientToTLSServer: (.tlsFailed, "the server speaks TLS: connect with TLS")
            case .tlsClientToPlainServer: (.tlsFailed, "the server does not speak TLS (connect without TLS, or serve with a certificate)")
            case .expiredServerCertificate: (.tlsFailed, "the server's certificate is not trusted: it expired on ")
            case .foreignServerCertificate: (.tlsFailed, "the server's certificate is not trusted: it is not signed by a trusted CA")
            case .hostnameMismatch: (.tlsFailed, "the server's certificate is not for 127.0.0.1: its names do not include it (hostname mismatch)")
            case .clientCertificateMissing: (.tlsFailed, "the server requires a client certificate (mutual TLS): connect with a certificate and key")
            case .expiredClientCertificate: (.tlsFailed, "the server refused this client's certificate: it expired")
            case .foreignClientCertificate: (.tlsFailed, "the server does not trust this client's certificate: it is not signed by a CA the server trusts")
            }
        }

        /// What the server's log line says after `refused 127.0.0.1:PORT: `.
        var serverSays: String {
            switch self {
            case .wrongToken: "wrong token"
            case .noToken: "no token: this server requires one"
            case .plainClientToTLSServer: "the replica does not speak TLS (a plain client; this server requires TLS)"
            case .tlsClientToPlainServer: "the replica speaks TLS, this server does not (serve with a certificate and key, or connect without TLS)"
            case .expiredServerCertificate: "the replica refused this server's certificate: it expired"
            case .foreignServerCertificate: "the replica does not trust this server's certificate: it is not signed by a CA the replica trusts"
            case .hostnameMismatch: "it may not accept this server's certificate for the name it connected to (a hostname mismatch)"
            case .clientCertificateMissing: "the replica presented no client certificate (this server requires one)"
            case .expiredClientCertificate: "the replica's certificate is not trusted: it expired on "
            case .foreignClientCertificate: "the replica's certificate is not trusted: it is not signed by a trusted CA"
            }
        }
    }

    @Test(arguments: Refusal.allCases)
    func aRefusedConnectionIsOneLineOnEachSideAndReplicatesNothing(_ refusal: Refusal) throws {
        let fixture = try TLSFixture()
        let server = try fixture.server(refusal.server)
        defer { server.stop() }
        let client = try fixture.client(of: server, refusal.client)

        let error = #expect(throws: ReplicationConnectionError.self) { try client.run() }

        let (code, message) = refusal.clientSays
        #expect(error?.code == code)
        #expect(error?.description.hasPrefix("tcp://127.0.0.1:\(server.port): \(message)") == true, "\(String(describing: error))")
        #expect(error?.isTransient == false)
        let lines = fixture.refusals()
        #expect(lines.count == 1 && lines.first?.hasPrefix("refused 127.0.0.1:") == true, "\(lines)")
        #expect(lines.first?.contains(": \(refusal.serverSays)") == true, "\(lines)")
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path("replica")))
    }

    @Test func aFollowingReplicaRefusedForItsTokenStopsInsteadOfRetrying() throws {
        let fixture = try TLSFixture()
        let server = try fixture.server()
        defer { server.stop() }

        let following = FollowingClient(try fixture.client(of: server, .init(token: "a-wrong-token-0123456789"), follow: true))

        #expect(following.ended(within: 60))
        #expect(following.stop() == ["tcp://127.0.0.1:\(server.port): wrong token"])
        #expect(fixture.refusals().count == 1)
    }
}
