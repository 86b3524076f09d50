import Foundation
import KVStore
@testable import KVStoreNetwork
import Testing
import TestSupport

/// Connections that never authenticate — idle, trickling, or many — cannot keep replicas out,
/// and get nothing from the server but their refusal.
@Suite(.tags(.network, .subprocess), .skippedByTag) struct ConnectionFloodTests {
    @Test(arguments: [false, true])
    func sixtyFourIdleConnectionsDoNotKeepAReplicaOut(tls: Bool) throws {
        let fixture = try TLSFixture()
        // The idle connections never time out here: only their own slots keep replicas safe.
        let server = try fixture.server(.init(identity: tls ? \.server : nil)) {
            $0.maxConnections = 2
            $0.handshakeTimeout = .seconds(600)
        }
        defer { server.stop() }
        let idle = try (0..<64).map { _ in try SocketConnection(host: server.host, port: server.port, timeout: .seconds(30)) }
        #expect(waitUntil { server.pendingConnectionCount == server.configuration.maxPendingConnections })

        let summary = try fixture.client(of: server, .init(tls: tls)).run()
        let following = FollowingClient(try fixture.client(of: server, into: "follower", .init(tls: tls), follow: true))

        #expect(summary.appliedSequence == 5)
        #expect(following.waitForCheckpoint(5))
        #expect(following.stop().isEmpty)
        #expect(server.pendingConnectionCount <= server.configuration.maxPendingConnections)
        #expect(fixture.log.all.filter { $0.hasPrefix("dropped ") }.count >= 64 - server.configuration.maxPendingConnections)
        _ = idle
    }

    @Test func aClientTricklingItsOpeningIsClosedAtTheHandshakeTimeout() throws {
        let fixture = try TLSFixture()
        let server = try fixture.server(.init(identity: nil)) { $0.handshakeTimeout = .seconds(1) }
        defer { server.stop() }
        let slow = try SocketConnection(host: server.host, port: server.port, timeout: .seconds(30))
        let opening = ClientOpening(token: Array("the-right-token-0123456789".utf8)).bytes   // 45 bytes: 11 s at 4 a second
        let sent = SentCount()
        let trickling = Thread {
            for byte in opening {
                guard (try? slow.sendAll([byte])) != nil else { return }
                sent.increment()
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
        trickling.start()

        #expect(try fixture.client(of: server, .init(tls: false)).run().appliedSequence == 5)   // meanwhile
        #expect(try slow.read(ReplicationProtocol.greeting.count) == ReplicationProtocol.greeting)
        let refusal = try slow.readFrame()

        #expect(sent.value < opening.count)
        #expect(refusal.type == .error && String(decoding: refusal.payload.dropFirst(), as: UTF8.self) == "the replica sent no opening within 1.0 seconds")
        #expect(throws: ReplicationConnectionError.self) { try slow.readFrame() }   // then closed
        #expect(fixture.refusals().contains { $0.hasSuffix(": the replica sent no opening within 1.0 seconds") })
        slow.shutDown()
    }

    @Test(arguments: [("wrong token", Array("a-wrong-token-0123456789".utf8)), ("no token: this server requires one", [])])
    func anUnauthenticatedClientGetsItsRefusalAndNothingElse(message: String, token: [UInt8]) throws {
        let fixture = try TLSFixture()
        let server = try fixture.server(.init(identity: nil))
        defer { server.stop() }
        let connection = try SocketConnection(host: server.host, port: server.port, timeout: .seconds(30))

        try connection.sendAll(ClientOpening(token: token).bytes)
        var received: [UInt8] = []
        while let byte = try? connection.read(1) { received += byte }

        #expect(received == ReplicationProtocol.greeting + ReplicationProtocol.errorFrame(message, busy: false))
    }

    @Test func aConnectionThatSendsNothingIsRefusedAtTheHandshakeTimeoutAndFreesItsSlot() throws {
        let fixture = try TLSFixture()
        let server = try fixture.server(.init(identity: nil)) {
            $0.handshakeTimeout = .milliseconds(200)
            $0.maxPendingConnections = 1
        }
        defer { server.stop() }
        let silent = try SocketConnection(host: server.host, port: server.port, timeout: .seconds(30))

        #expect(try silent.read(ReplicationProtocol.greeting.count) == ReplicationProtocol.greeting)
        let refusal = try silent.readFrame()

        #expect(String(decoding: refusal.payload.dropFirst(), as: UTF8.self) == "the replica sent no opening within 0.2 seconds")
        #expect(waitUntil { server.pendingConnectionCount == 0 })
        #expect(try fixture.client(of: server, .init(tls: false)).run().appliedSequence == 5)
    }
}

/// A count raised on one thread and read on another.
final class SentCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
