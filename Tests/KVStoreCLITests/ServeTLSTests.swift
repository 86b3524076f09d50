#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport

/// `kvstore serve` and `kvstore replicate tcp://…` over real TLS on loopback, with tokens and
/// client certificates: what works, and every refusal as one line on each side.
@Suite(.tags(.subprocess, .network), .skippedByTag) struct ServeTLSTests {
    let dir: TestDirectory
    let source: String
    let replica: String
    let certificates: TestCertificates
    let token: String
    let wrongToken: String

    init() throws {
        dir = try TestDirectory()
        source = dir.path("source")
        replica = dir.path("replica")
        try makeSource(dir, "source")
        try FileManager.default.createDirectory(atPath: dir.path("tls"), withIntermediateDirectories: false)
        certificates = try TestCertificates(in: dir.path("tls"))
        token = try writeSecret("a3f1c9e07b5d42869e1f0a7c3b5d8e21\n", to: dir.path("token"))
        wrongToken = try writeSecret("0000000000000000000000000000000\n", to: dir.path("wrong-token"))
    }

    /// Starts `kvstore serve SOURCE --listen 127.0.0.1:0 arguments…`. - Returns: it and its port.
    private func serve(_ arguments: [String]) throws -> (BackgroundCommand, Int) {
        let server = try BackgroundCommand(["serve", source, "--listen", "127.0.0.1:0"] + arguments, in: dir)
        let line = try #require(server.waitForLines(1).first, "serve printed nothing: \(server.stderr)")
        return (server, try #require(Int(line.split(separator: ":").last ?? "")))
    }

    private var serverTLS: [String] { ["--tls-cert", certificates.server.certificate, "--tls-key", certificates.server.key] }

    @Test func aReplicaWithTheTokenOverTLSReplicatesAndSoDoesOneWithAClientCertificate() throws {
        var (server, port) = try serve(serverTLS + ["--token-file", token])
        try dir.succeed("replicate", "tcp://127.0.0.1:\(port)", replica, "--ca", certificates.ca.certificate, "--token-file", token)
        try dir.succeed("replicate", "tcp://localhost:\(port)", dir.path("seeded"), "--snapshot", "--ca", certificates.ca.certificate, "--token-file", token)
        #expect(server.stop() == 0)
        #expect(!server.stderr.contains("refused"), "\(server.stderr)")

        (server, port) = try serve(serverTLS + ["--client-ca", certificates.ca.certificate])
        try dir.succeed("replicate", "tcp://127.0.0.1:\(port)", dir.path("mutual"), "--ca", certificates.ca.certificate,
                        "--cert", certificates.client.certificate, "--key", certificates.client.key)
        #expect(server.stop() == 0)
        for copy in [replica, dir.path("seeded"), dir.path("mutual")] { #expect(try dir.succeed("diff", source, copy).stdout.isEmpty) }
    }

    /// A way to be refused: the server's options, the replica's, and what each says.
    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let serve: @Sendable (ServeTLSTests) -> [String]
        let replicate: @Sendable (ServeTLSTests) -> [String]
        let clientSays: String
        let serverSays: String
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "wrong token", serve: { $0.serverTLS + ["--token-file", $0.token] },
                replicate: { ["--ca", $0.certificates.ca.certificate, "--token-file", $0.wrongToken] },
                clientSays: "wrong token", serverSays: "wrong token"),
        Refusal(name: "no token", serve: { $0.serverTLS + ["--token-file", $0.token] },
                replicate: { ["--ca", $0.certificates.ca.certificate] },
                clientSays: "no token: this server requires one", serverSays: "no token: this server requires one"),
        Refusal(name: "plain client to a TLS server", serve: { $0.serverTLS + ["--token-file", $0.token] },
                replicate: { ["--token-file", $0.token] },
                clientSays: "the server speaks TLS: connect with TLS", serverSays: "the replica does not speak TLS"),
        Refusal(name: "TLS client to a plain server", serve: { ["--token-file", $0.token] },
                replicate: { ["--ca", $0.certificates.ca.certificate, "--token-file", $0.token] },
                clientSays: "the server does not speak TLS", serverSays: "the replica speaks TLS, this server does not"),
        Refusal(name: "expired server certificate",
                serve: { ["--tls-cert", $0.certificates.expiredServer.certificate, "--tls-key", $0.certificates.expiredServer.key, "--token-file", $0.token] },
                replicate: { ["--ca", $0.certificates.ca.certificate, "--token-file", $0.token] },
                clientSays: "the server's certificate is not trusted: it expired on ", serverSays: "the replica refused this server's certificate: it expired"),
        Refusal(name: "server certificate from a foreign CA",
                serve: { ["--tls-cert", $0.certificates.foreignServer.certificate, "--tls-key", $0.certificates.foreignServer.key, "--token-file", $0.token] },
                replicate: { ["--ca", $0.certificates.ca.certificate, "--token-file", $0.token] },
                clientSays: "the server's certificate is not trusted: it is not signed by a trusted CA",
                serverSays: "the replica does not trust this server's certificate"),
        Refusal(name: "client certificate required and missing", serve: { $0.serverTLS + ["--client-ca", $0.certificates.ca.certificate] },
                replicate: { ["--ca", $0.certificates.ca.certificate] },
                clientSays: "the server requires a client certificate", serverSays: "the replica presented no client certificate"),
        Refusal(name: "client certificate from a foreign CA", serve: { $0.serverTLS + ["--client-ca", $0.certificates.ca.certificate] },
                replicate: { ["--ca", $0.certificates.ca.certificate, "--cert", $0.certificates.foreignClient.certificate, "--key", $0.certificates.foreignClient.key] },
                clientSays: "the server does not trust this client's certificate",
                serverSays: "the replica's certificate is not trusted: it is not signed by a trusted CA"),
    ]

    @Test(arguments: refusals)
    func aRefusalIsOneLineOnEachSide(_ refusal: Refusal) throws {
        let (server, port) = try serve(refusal.serve(self))

        try dir.fail(["replicate", "tcp://127.0.0.1:\(port)", replica] + refusal.replicate(self),
                     says: "kvstore: tcp://127.0.0.1:\(port): \(refusal.clientSays)")

        #expect(waitUntil { server.stderr.contains("serve: refused 127.0.0.1:") })
        #expect(server.stop() == 0)
        let refused = server.stderr.split(separator: "\n").filter { $0.hasPrefix("serve: refused") }
        #expect(refused.count == 1 && refused.first?.contains(refusal.serverSays) == true, "\(server.stderr)")
        #expect(!FileManager.default.fileExists(atPath: replica))
    }

    @Test func aTokenFileOthersCanReadIsRefusedOnEitherSide() throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: token)
        let refusal = "kvstore: token file \(token) is accessible by others (mode 0644): chmod 600 it"
        try dir.fail(["serve", source, "--listen", "127.0.0.1:0", "--token-file", token], says: refusal)
        try dir.fail(["replicate", "tcp://127.0.0.1:7", replica, "--token-file", token], says: refusal)
        #expect(!FileManager.default.fileExists(atPath: replica))
    }

    @Test func anAddressThatIsNotLoopbackNeedsTLSAndAuthenticationAndIsRefusedBeforeBinding() throws {
        // The port is taken on loopback: binding 0.0.0.0 to it would fail with "cannot listen".
        let (server, port) = try serve([])
        let listen = ["serve", source, "--listen", "0.0.0.0:\(port)"]
        try dir.fail(listen, says: "kvstore: 0.0.0.0 is not a loopback address: listening there needs TLS and authentication: a certificate and its key (--tls-cert, --tls-key), and a token (--token-file) or client certificates (--client-ca)")
        try dir.fail(listen + serverTLS, says: "listening there needs authentication: a token (--token-file) or client certificates (--client-ca)")
        try dir.fail(listen + ["--token-file", token], says: "listening there needs TLS: a certificate and its key (--tls-cert, --tls-key)")
        try dir.fail(listen + serverTLS + ["--token-file", token], says: "cannot listen on 0.0.0.0:\(port)")   // then it binds
        #expect(server.stop() == 0)
    }

    @Test func optionsThatDoNotGoTogetherAreRefused() throws {
        try dir.fail(["serve", source, "--tls-cert", certificates.server.certificate], says: "--tls-cert and --tls-key go together")
        try dir.fail(["serve", source, "--client-ca", certificates.ca.certificate], says: "--client-ca needs TLS: give --tls-cert and --tls-key too")
        try dir.fail(["serve", source, "--handshake-timeout", "0"], says: "--handshake-timeout must be at least 0.001")
        // Below a millisecond it would round to no time at all and refuse every replica.
        try dir.fail(["serve", source, "--handshake-timeout", "0.0001"], says: "--handshake-timeout must be at least 0.001")
        try dir.fail(["replicate", "tcp://127.0.0.1:7", replica, "--cert", certificates.client.certificate],
                     says: "the client certificate \(certificates.client.certificate) needs its private key too")
        try dir.fail(["replicate", source, replica, "--tls"], says: "--tls, --ca, --cert, --key and --token-file are for a tcp:// source")
        #expect(!FileManager.default.fileExists(atPath: replica))
    }

    @Test func sixtyFourIdleConnectionsDoNotKeepAReplicaOut() throws {
        // The idle connections never time out here: only their own slots keep replicas safe.
        let (server, port) = try serve(serverTLS + ["--token-file", token, "--max-connections", "1", "--handshake-timeout", "600"])
        let idle = try (0..<64).map { _ in try connectedSocket(port: port) }
        defer { idle.forEach { close($0) } }
        #expect(waitUntil { server.stderr.components(separatedBy: "serve: dropped").count > 64 - 32 })

        try dir.succeed("replicate", "tcp://127.0.0.1:\(port)", replica, "--ca", certificates.ca.certificate, "--token-file", token)

        #expect(server.stop() == 0)
        #expect(try dir.succeed("diff", source, replica).stdout.isEmpty)
    }

    /// A TCP connection to 127.0.0.1:`port` that sends nothing.
    private func connectedSocket(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        return descriptor
    }
}
