#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import KVStore
@testable import KVStoreNetwork
import Testing
import TestSupport

/// A client facing a peer that does not speak the protocol, or speaks it wrong, stops with one
/// clear line and leaves no replica behind.
@Suite(.tags(.network), .skippedByTag) struct ClientRefusalTests {
    /// Listens on an ephemeral loopback port; the first connection gets `bytes`, then is held open
    /// until the client closes it.
    private final class FakeServer: Sendable {
        let port: Int
        private let listener: Int32

        init(sending bytes: [UInt8]) throws {
            let (listener, port) = try loopbackSocket()
            self.listener = listener
            self.port = port
            try #require(listen(listener, 1) == 0)
            Thread {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
                var scratch = [UInt8](repeating: 0, count: 256)
                while recv(connection, &scratch, scratch.count, 0) > 0 {}
                close(connection)
            }.start()
        }

        // Used by one client each: the thread has accepted it before the server goes, so the
        // closed descriptor (whose number another test may get next) is never accepted on.
        deinit {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    /// A loopback port nothing listens on (bound, read and closed at once).
    private func freePort() throws -> Int {
        let (descriptor, port) = try loopbackSocket()
        close(descriptor)
        return port
    }

    private func failure(against bytes: [UInt8]) throws -> (ReplicationConnectionError?, String) {
        let directory = try TemporaryDirectory()
        let server = try FakeServer(sending: bytes)
        let client = JournalClient(host: "127.0.0.1", port: server.port, replica: directory.path("replica"))
        let error = #expect(throws: ReplicationConnectionError.self) { try client.run() }
        #expect(!FileManager.default.fileExists(atPath: directory.path("replica")))
        return (error, "tcp://127.0.0.1:\(server.port): ")
    }

    @Test func aPeerThatIsNotAJournalServerIsNamed() throws {
        let (error, server) = try failure(against: Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
        #expect(error?.code == .malformed)
        #expect(error?.description == server + "not a kvstore journal server (its first bytes are not the replication protocol's)")
    }

    /// A newer server, or an older one (version 1 greets first, and refuses the client's opening).
    @Test(arguments: [9, 1] as [UInt8])
    func anotherProtocolIsRefused(version: UInt8) throws {
        let (error, server) = try failure(against: ReplicationProtocol.magic + [version, 0])
        #expect(error?.code == .newerProtocol)
        #expect(error?.description == server + "the server speaks replication protocol \(version), this kvstore 2; use the same kvstore on both sides")
    }

    @Test func aCorruptHelloIsRefused() throws {
        var hello = Hello(storeID: UUID(), firstSequence: 1, lastSequence: 5).frame
        hello[hello.count - 1] ^= 0xFF
        let (error, server) = try failure(against: ReplicationProtocol.greeting + hello)
        #expect(error?.code == .malformed)
        #expect(error?.description == server + "the server sent a bad frame: a 'h' frame fails its checksum: the connection is corrupt")
    }

    @Test func anOversizedFrameFromTheServerIsRefusedBeforeItArrives() throws {
        let (error, server) = try failure(against: ReplicationProtocol.greeting + [0xFF, 0xFF, 0xFF, 0x7F, 0x68])
        #expect(error?.code == .malformed)
        #expect(error?.description == server + "the server sent a bad frame: a frame of 2147483647 bytes is larger than the 1048567 allowed here")
    }

    @Test func aServerThatClosesMidHelloIsALostConnection() throws {
        let directory = try TemporaryDirectory()
        let server = try FakeServer(sending: ReplicationProtocol.greeting + [32, 0])
        let client = JournalClient(host: "127.0.0.1", port: server.port, replica: directory.path("replica"), options: {
            var options = JournalClient.Options()
            options.timeout = .milliseconds(200)
            return options
        }())
        let error = #expect(throws: ReplicationConnectionError.self) { try client.run() }
        #expect(error?.code == .connectionLost && error?.isTransient == true)
        #expect(error?.message == "connection lost: the server sent nothing for too long")
    }

    @Test(arguments: [false, true])
    func aServerThatStopsMidSnapshotLeavesTheReplicaAsItWasAndNoSnapshotFile(replicaExists: Bool) throws {
        let directory = try TemporaryDirectory()
        let replica = directory.path("replica")
        if replicaExists { try commitItems(2, into: try Store(path: replica)) }
        let hello = Hello(storeID: UUID(), firstSequence: 5, lastSequence: 9).frame
        let server = try FakeServer(sending: ReplicationProtocol.greeting + hello + ReplicationProtocol.frame(.snapshotData, [UInt8](repeating: 7, count: 4096)))
        var options = JournalClient.Options(startFromSnapshot: true)
        options.timeout = .milliseconds(300)
        let client = JournalClient(host: "127.0.0.1", port: server.port, replica: replica, options: options)

        let error = #expect(throws: ReplicationConnectionError.self) { try client.run() }

        #expect(error?.code == .connectionLost)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == (replicaExists ? ["replica"] : []))
        if replicaExists {
            let store = try Store(path: replica)
            #expect(try lastSequence(store) == 2 && store.replicaSource == nil)
        }
    }

    @Test func nothingListeningIsUnreachable() throws {
        let directory = try TemporaryDirectory()
        let port = try freePort()
        let error = #expect(throws: ReplicationConnectionError.self) {
            try JournalClient(host: "127.0.0.1", port: port, replica: directory.path("replica")).run()
        }
        #expect(error?.code == .unreachable)
        #expect(error?.description == "tcp://127.0.0.1:\(port): cannot connect: Connection refused")
    }
}

/// A TCP socket bound to a free loopback port. - Returns: it and the port.
private func loopbackSocket() throws -> (descriptor: Int32, port: Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
    try #require(bound == 0)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}
