import Foundation
import KVStore
@testable import KVStoreNetwork
import Testing
import TestSupport

/// The protocol at the level of frames: what a server refuses, what a client refuses, and
/// back-pressure against a replica that does not read.
@Suite(.tags(.network), .skippedByTag) struct ProtocolTests {
    /// A raw connection to `server` past its greeting. - Returns: it and the hello.
    private func connect(_ server: JournalServer, receiveBuffer: Int32? = nil) throws -> (SocketConnection, Hello?, ProtocolFrame) {
        let (connection, frame) = try SocketConnection.opened(to: server, receiveBuffer: receiveBuffer)
        return (connection, Hello(payload: frame.payload), frame)
    }

    /// The message of an error frame.
    private func message(_ frame: ProtocolFrame) -> String {
        #expect(frame.type == .error)
        return String(decoding: frame.payload.dropFirst(), as: UTF8.self)
    }

    @Test func theHelloTellsTheSourceAndItsJournalRange() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(7, into: source)
        _ = try source.truncateJournal(before: 3)
        let server = try startedServer(source)
        defer { server.stop() }

        let (_, hello, _) = try connect(server)

        #expect(hello == Hello(storeID: source.id, firstSequence: 3, lastSequence: 7))
    }

    @Test(arguments: [
        ("oversized", [0xE8, 0x03, 0, 0, 0x72] + [UInt8](repeating: 0, count: 16), "larger than the 55 allowed"),
        ("corrupt", Array(Request(after: 0, flags: []).frame.dropLast()) + [0], "fails its checksum"),
        ("unknown type", [0, 0, 0, 0, 0x7A, 0, 0, 0, 0], "unknown type 122"),
        ("not a request", ReplicationProtocol.frame(.hello, [UInt8](repeating: 0, count: 32)), "where a request (9 bytes) was expected"),
        ("short request", ReplicationProtocol.frame(.request, [1, 2, 3]), "where a request (9 bytes) was expected"),
    ] as [(String, [UInt8], String)])
    func aBadFrameFromAReplicaIsRefusedWithOneLine(_ name: String, bytes: [UInt8], expected: String) throws {
        let directory = try TemporaryDirectory()
        let server = try startedServer(try directory.store("source"))
        defer { server.stop() }
        let (connection, _, _) = try connect(server)

        try connection.sendAll(bytes)

        let refusal = message(try connection.readFrame())
        #expect(refusal.contains(expected), "\(name): \(refusal)")
        #expect(!refusal.contains("\n"))
        #expect(throws: ReplicationConnectionError.self) { try connection.readFrame() }   // then closed
    }

    @Test(arguments: [9, UInt64.max])
    func aReplicaPastTheSourcesLastSequenceIsRefused(after: UInt64) throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(3, into: source)
        let server = try startedServer(source)
        defer { server.stop() }
        let (connection, _, _) = try connect(server)

        try connection.sendAll(Request(after: after, flags: [.follow, .acceptsSnapshot]).frame)

        #expect(message(try connection.readFrame()).contains("has applied the source through sequence \(after), but the source's journal ends at 3"))
    }

    @Test func aFollowingReplicaIsToldTheSourcesPositionInItsStream() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(3, into: source)
        let server = try startedServer(source)
        defer { server.stop() }
        let (connection, _, _) = try connect(server)
        try connection.sendAll(Request(after: 3, flags: [.follow]).frame)
        #expect(try connection.readFrame().type == .journal)
        let reader = try JournalStreamReader(start: connection.takeBuffered(), fileDescriptor: connection.descriptor)

        guard case .position(let first) = try reader.nextItem() else { Issue.record("no position first"); return }
        #expect(first == 3)
        try commitItems(2, startingAt: 3, into: source)
        // The position may run ahead of the commits (it is read from the store, not the stream).
        var (commits, toldFive) = (0, false)
        while commits < 2 || !toldFive {
            switch try #require(try reader.nextItem()) {
            case .commit: commits += 1
            case .position(let last): toldFive = toldFive || last == 5
            }
        }
        #expect(commits == 2 && reader.sourceLastSequence == 5)
    }

    @Test func connectionsPastTheLimitAreToldTheServerIsBusy() throws {
        let directory = try TemporaryDirectory()
        let server = try startedServer(try directory.store("source")) { $0.maxConnections = 1 }
        defer { server.stop() }
        let (first, hello, _) = try connect(server)
        #expect(hello != nil)

        let (_, _, refusal) = try connect(server)
        #expect(refusal.payload.first == 2)
        #expect(message(refusal) == "too many connections: this server serves at most 1 replicas at once")
        let error = #expect(throws: ReplicationConnectionError.self) {
            try client(of: server, into: directory.path("replica")).run()
        }
        #expect(error?.code == .busy && error?.isTransient == true)
        _ = first
    }

    @Test func aReplicaThatDoesNotReadHoldsTheServerToItsHighWaterMark() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitBlobs(200, of: 2048, into: source)
        let highWaterMark = 32 << 10
        let server = try startedServer(source) {
            $0.highWaterMark = highWaterMark
            $0.socketSendBuffer = 4096
        }
        defer { server.stop() }
        let (connection, _, _) = try connect(server, receiveBuffer: 4096)

        try connection.sendAll(Request(after: 0, flags: []).frame)

        // The stream (over 400 kB) stops at the window while the replica reads nothing.
        #expect(waitUntil { (server.connectionStatistics.first?.waits ?? 0) > 0 })
        let (peak, _) = try #require(server.connectionStatistics.first)
        #expect(peak >= highWaterMark && peak < highWaterMark + (72 << 10))
        // Then the replica reads it all (with a larger buffer, to be quick): nothing was dropped.
        var size: Int32 = 1 << 20
        setsockopt(connection.descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        #expect(try connection.readFrame().type == .journal)
        let reader = try JournalStreamReader(start: connection.takeBuffered(), fileDescriptor: connection.descriptor)
        var entries = 0
        while let commit = try reader.nextCommit() { entries += commit.count }
        #expect(entries == 200)
    }
}
