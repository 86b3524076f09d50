import Foundation
import KVStore
@testable import KVStoreNetwork
import Testing
import TestSupport

/// Tokens, credentials and addresses: what a server or client refuses before any connection.
@Suite struct SecurityConfigurationTests {
    @Test func aTokenFileOthersCanReadIsRefusedAsSshDoes() throws {
        let directory = try TemporaryDirectory()
        let path = try writeSecret("0123456789abcdef0123456789abcdef\n", to: directory.path("token"), mode: 0o644)

        let error = #expect(throws: CredentialError.self) { try ReplicationToken(contentsOfFile: path) }

        #expect(error?.path == path)
        #expect(error?.description == "token file \(path) is accessible by others (mode 0644): chmod 600 it")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        #expect(try ReplicationToken(contentsOfFile: path).matches(Array("0123456789abcdef0123456789abcdef".utf8)))
    }

    @Test func aTokenIsItsFirstLineTrimmedAndNotTooShort() throws {
        let directory = try TemporaryDirectory()
        let path = try writeSecret("  0123456789abcdef \r\nsecond line\n", to: directory.path("token"))
        let token = try ReplicationToken(contentsOfFile: path)
        #expect(token.matches(Array("0123456789abcdef".utf8)))
        #expect(!token.matches(Array("0123456789abcdeF".utf8)) && !token.matches(Array("0123456789abcdef0".utf8)) && !token.matches([]))

        try writeSecret("short\n", to: path)
        let error = #expect(throws: CredentialError.self) { try ReplicationToken(contentsOfFile: path) }
        #expect(error?.description == "the token in \(path) has 5 bytes; a token needs at least 16 (make one with: openssl rand -hex 32)")
        #expect(throws: CredentialError.self) { try ReplicationToken(contentsOfFile: directory.path("nothing")) }
    }

    @Test(.tags(.subprocess), .skippedByTag) func credentialFilesThatCannotBeUsedAreNamed() throws {
        let directory = try TemporaryDirectory()
        let certificates = try TestCertificates(in: directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: certificates.server.key)
        var error = #expect(throws: CredentialError.self) {
            try JournalServer.TLS(certificateFile: certificates.server.certificate, keyFile: certificates.server.key)
        }
        #expect(error?.description == "key file \(certificates.server.key) is accessible by others (mode 0640): chmod 600 it")
        error = #expect(throws: CredentialError.self) {
            try JournalServer.TLS(certificateFile: certificates.server.key, keyFile: certificates.client.key)
        }
        #expect(error?.description == "certificate file \(certificates.server.key) holds no PEM certificate")
        error = #expect(throws: CredentialError.self) {
            try JournalServer.TLS(certificateFile: certificates.server.certificate, keyFile: certificates.client.key)
        }
        #expect(error?.description.hasPrefix("the key in \(certificates.client.key) does not go with the certificate in \(certificates.server.certificate): ") == true)
        error = #expect(throws: CredentialError.self) { try JournalClient.TLS(certificateFile: certificates.client.certificate) }
        #expect(error?.description == "the client certificate \(certificates.client.certificate) needs its private key too")
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.9.8.7", true), ("localhost", true), ("::1", true), ("::ffff:127.0.0.1", true),
        ("0.0.0.0", false), ("::", false), ("10.1.2.3", false), ("192.0.2.1", false), ("::ffff:10.0.0.1", false), ("2001:db8::1", false),
    ])
    func loopbackAddressesAreToldFromOthers(host: String, loopback: Bool) {
        #expect(Loopback.isLoopback(host: host) == loopback)
    }

    @Test(.tags(.subprocess), .skippedByTag) func listeningOffLoopbackNeedsTLSAndAuthentication() throws {
        let directory = try TemporaryDirectory()
        let certificates = try TestCertificates(in: directory.path)
        let tls = try JournalServer.TLS(certificateFile: certificates.server.certificate, keyFile: certificates.server.key)
        let mutual = try JournalServer.TLS(certificateFile: certificates.server.certificate, keyFile: certificates.server.key, clientCAFile: certificates.ca.certificate)
        var configuration = JournalServer.Configuration()
        configuration.host = "0.0.0.0"
        #expect(configuration.missingProtection?.hasPrefix("TLS and authentication") == true)
        configuration.token = try ReplicationToken("0123456789abcdef")
        #expect(configuration.missingProtection?.hasPrefix("TLS: ") == true)
        configuration.tls = tls
        #expect(configuration.missingProtection == nil)
        configuration.token = nil
        #expect(configuration.missingProtection?.hasPrefix("authentication: ") == true)
        configuration.tls = mutual
        #expect(configuration.missingProtection == nil)
        configuration.host = "127.0.0.1"
        configuration.tls = nil
        #expect(configuration.missingProtection == nil)
    }

    @Test(.tags(.network), .skippedByTag) func aServerOffLoopbackWithoutProtectionRefusesToStartBeforeBinding() throws {
        let directory = try TemporaryDirectory()
        let store = try directory.store("source")
        // The port is taken on loopback: binding 0.0.0.0 to it would fail with "cannot listen".
        let taken = try startedServer(store)
        defer { taken.stop() }
        var configuration = JournalServer.Configuration()
        configuration.host = "0.0.0.0"
        configuration.port = taken.port

        let error = #expect(throws: ServerError.self) { try JournalServer(store: store, configuration: configuration).start() }

        #expect(error?.description == "0.0.0.0 is not a loopback address: listening there needs TLS and authentication: a certificate and its key (--tls-cert, --tls-key), and a token (--token-file) or client certificates (--client-ca)")
    }

    @Test(arguments: [
        ([0x16, 0x03, 0x01, 0x00], "the replica speaks TLS, this server does not"),
        (Array("GET / HTTP/1.1\r\n".utf8), "not a kvstore replica (its first bytes are not the replication protocol's)"),
        (ReplicationProtocol.magic + [1, 0], "the replica speaks replication protocol 1, this server 2; use the same kvstore on both sides"),
        (ReplicationProtocol.greeting + [0xFF, 0x04, 0, 0, 0x61], "the replica sent a bad frame: a frame of 1279 bytes is larger than the 1024 allowed here"),
        (ReplicationProtocol.greeting + Request(after: 0, flags: []).frame, "the replica sent a 'r' frame where its opening ('a') was expected"),
    ] as [([UInt8], String)])
    func aBadOpeningIsRefusedAsSoonAsItShows(bytes: [UInt8], message: String) {
        let error = #expect(throws: ClientOpening.Problem.self) { try ClientOpening.decode(bytes[...]) }
        #expect(error?.message.hasPrefix(message) == true, "\(String(describing: error))")
    }

    @Test func anOpeningReadsBackOnlyWhenWhole() throws {
        let opening = ClientOpening(token: Array("0123456789abcdef".utf8))
        let bytes = opening.bytes + [1, 2]
        for cut in 0..<opening.bytes.count { #expect(try ClientOpening.decode(bytes.prefix(cut)) == nil) }
        let decoded = try #require(try ClientOpening.decode(bytes[...]))
        #expect(decoded.opening == opening && decoded.length == opening.bytes.count)
    }
}
