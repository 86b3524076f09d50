import Foundation
import KVStore
@testable import KVStoreNetwork
import Testing
import TestSupport

/// A test's source store, certificates (``TestCertificates``) and token, and the server log:
/// servers and clients over real TLS on loopback.
final class TLSFixture {
    let directory: TemporaryDirectory
    let source: Store
    let certificates: TestCertificates
    let token: ReplicationToken
    /// The servers' log lines.
    let log = Failures()

    init() throws {
        directory = try TemporaryDirectory()
        source = try directory.store("source")
        try commitItems(5, into: source)
        certificates = try TestCertificates(in: directory.path)
        token = try ReplicationToken("the-right-token-0123456789")
    }

    /// How a server is secured.
    struct ServerSecurity {
        /// The certificate it serves with; nil: plain TCP.
        var identity: KeyPath<TestCertificates, TestCertificates.Identity>? = \.server
        var clientCA = false
        var token = true
    }

    /// A started server of the source, secured as `security` says, logging into ``log``.
    func server(_ security: ServerSecurity = ServerSecurity(), configure: (inout JournalServer.Configuration) -> Void = { _ in }) throws -> JournalServer {
        let tls = try security.identity.map { identity in
            try JournalServer.TLS(certificateFile: certificates[keyPath: identity].certificate, keyFile: certificates[keyPath: identity].key,
                                  clientCAFile: security.clientCA ? certificates.ca.certificate : nil)
        }
        let token = security.token ? token : nil
        let log = log
        return try startedServer(source) {
            $0.tls = tls
            $0.token = token
            $0.log = { log.add($0) }
            configure(&$0)
        }
    }

    /// How a client connects.
    struct ClientSecurity {
        /// TLS, trusting ``TestCertificates/ca``; false: plain TCP.
        var tls = true
        var identity: KeyPath<TestCertificates, TestCertificates.Identity>?
        /// The token it sends: nil for none.
        var token: String? = "the-right-token-0123456789"
    }

    /// The options of a client secured as `security` says.
    func options(_ security: ClientSecurity = ClientSecurity(), follow: Bool = false) throws -> JournalClient.Options {
        var options = JournalClient.Options(follow: follow)
        options.reconnectDelay = .milliseconds(20) ... .milliseconds(100)
        if security.tls {
            let identity = security.identity.map { certificates[keyPath: $0] }
            options.tls = try JournalClient.TLS(trustRootsFile: certificates.ca.certificate, certificateFile: identity?.certificate, keyFile: identity?.key)
        }
        options.token = try security.token.map { text throws(CredentialError) in try ReplicationToken(text) }
        return options
    }

    /// A client of `server` into `name`, secured as `security` says.
    func client(of server: JournalServer, into name: String = "replica", _ security: ClientSecurity = ClientSecurity(), follow: Bool = false) throws -> JournalClient {
        JournalClient(host: server.host, port: server.port, replica: directory.path(name), options: try options(security, follow: follow))
    }

    /// The log's lines about refused connections, once there are `count` of them (or a minute passed).
    func refusals(_ count: Int = 1) -> [String] {
        waitUntil { log.all.filter { $0.hasPrefix("refused ") }.count >= count }
        return log.all.filter { $0.hasPrefix("refused ") }
    }
}
