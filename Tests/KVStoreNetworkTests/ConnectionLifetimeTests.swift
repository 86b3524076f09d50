import Foundation
import KVStore
@testable import KVStoreNetwork
import Testing
import TestSupport

/// A connection's slot and thread are given back on every way a connection can end.
@Suite(.tags(.network), .skippedByTag) struct ConnectionLifetimeTests {
    /// A raw connection to `server`, its greeting and hello read.
    private func connect(_ server: JournalServer) throws -> SocketConnection {
        let (connection, hello) = try SocketConnection.opened(to: server, timeout: .seconds(20))
        #expect(hello.type == .hello)
        return connection
    }

    /// Waits until `server` serves no connection and runs no stream thread.
    private func isIdle(_ server: JournalServer) -> Bool {
        waitUntil(timeout: 20) { server.connectionStatistics.isEmpty }
            && server.streams.wait(timeout: .now() + 20) == .success
    }

    /// A replica silent where its first request is due (the request time-out), or its next one
    /// after a snapshot (the idle time-out).
    @Test(arguments: [false, true])
    func aReplicaThatSendsNoRequestIsDisconnectedAndItsSlotFreed(afterASnapshot: Bool) throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(2, into: source)
        let server = try startedServer(source) {
            $0.maxConnections = 1
            $0.requestTimeout = afterASnapshot ? .seconds(60) : .milliseconds(200)
            $0.idleTimeout = afterASnapshot ? .milliseconds(200) : .seconds(60)
        }
        defer { server.stop() }
        let silent = try connect(server)
        if afterASnapshot {
            try silent.sendAll(Request(after: 0, flags: [.wantsSnapshot]).frame)
            while try silent.readFrame().type == .snapshotData {}
        }

        let frame = try silent.readFrame()

        #expect(frame.type == .error && frame.payload.first == 1)
        #expect(String(decoding: frame.payload.dropFirst(), as: UTF8.self) == "the replica sent no request within 0.2 seconds")
        #expect(throws: ReplicationConnectionError.self) { try silent.readFrame() }   // then closed
        #expect(isIdle(server))
        try client(of: server, into: directory.path("replica")).run()   // the slot is free again
    }

    @Test func aReplicaThatSendsHalfARequestIsDisconnectedToo() throws {
        let directory = try TemporaryDirectory()
        // Long enough that the half request surely arrives before it, on a loaded machine.
        let server = try startedServer(try directory.store("source")) { $0.requestTimeout = .seconds(1) }
        defer { server.stop() }
        let slow = try connect(server)

        try slow.sendAll(Array(Request(after: 0, flags: []).frame.prefix(6)))

        #expect(try slow.readFrame().type == .error)
        #expect(isIdle(server))
    }

    @Test func aReplicaThatStopsReadingIsDisconnectedAndItsSlotFreed() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitBlobs(200, of: 2048, into: source)
        let server = try startedServer(source) {
            $0.maxConnections = 1
            $0.highWaterMark = 32 << 10
            $0.socketSendBuffer = 4096
            $0.stallTimeout = .milliseconds(300)
        }
        defer { server.stop() }
        let (stalled, _) = try SocketConnection.opened(to: server, timeout: .seconds(20), receiveBuffer: 4096)

        try stalled.sendAll(Request(after: 0, flags: [.follow]).frame)   // then reads nothing

        #expect(isIdle(server))
        // The slot is free again: a new replica is served, not told "busy". (It reads one frame
        // only: a whole sync could itself stop reading for longer than the 300 ms stall timeout on
        // a loaded machine and be cut off, as this test once was.)
        let next = try connect(server)
        try next.sendAll(Request(after: 0, flags: []).frame)
        #expect(try next.readFrame().type == .journal)
        next.shutDown()
    }

    @Test func aFollowerSentOnlyPositionsOutlivesTheIdleAndRequestTimeouts() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(3, into: source)
        let log = Failures()
        let server = try startedServer(source) {
            $0.idleTimeout = .milliseconds(100)
            $0.requestTimeout = .milliseconds(100)
            $0.handshakeTimeout = .milliseconds(100)
            $0.log = { log.add($0) }
        }
        defer { server.stop() }
        let following = FollowingClient(client(of: server, into: directory.path("replica"), follow: true))
        #expect(following.waitForCheckpoint(3))

        Thread.sleep(forTimeInterval: 1)   // ten times every time-out: only positions go out
        try commitItems(2, startingAt: 3, into: source)

        #expect(following.waitForCheckpoint(5))
        #expect(following.stop().isEmpty)
        #expect(log.all.filter { $0.hasPrefix("streaming to") }.count == 1 && !log.all.contains { $0.hasPrefix("refused") }, "\(log.all)")
    }

    @Test func everyWayOfLeavingGivesTheSlotAndThreadBack() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitBlobs(300, of: 4096, into: source)
        let server = try startedServer(source) { $0.maxConnections = 1 }
        defer { server.stop() }

        for _ in 0..<5 {
            // Before any request.
            _ = try connect(server)
            #expect(isIdle(server))
            // Mid-snapshot: the first chunk read, then gone.
            var connection = try connect(server)
            try connection.sendAll(Request(after: 0, flags: [.wantsSnapshot]).frame)
            #expect(try connection.readFrame().type == .snapshotData)
            connection.shutDown()
            #expect(isIdle(server))
            // Mid-stream, following.
            connection = try connect(server)
            try connection.sendAll(Request(after: 0, flags: [.follow]).frame)
            #expect(try connection.readFrame().type == .journal)
            connection.shutDown()
            #expect(isIdle(server))
        }
        try client(of: server, into: directory.path("replica")).run()
    }
}

/// Followers that reset their connections while the server tells them its position: the server
/// closes them and keeps serving (a write that fails on the event loop closes its channel at
/// once; nothing may hold a lock the closing takes).
@Suite(.tags(.network), .skippedByTag) struct ResetFollowerTests {
    @Test func followersResettingWhileTheServerSendsPositionsLeaveItServing() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(3, into: source)
        let server = try startedServer(source) {
            $0.positionInterval = .milliseconds(10)
            $0.maxConnections = 64
        }
        defer { server.stop() }

        for _ in 0..<40 {
            var followers: [SocketConnection] = []
            for _ in 0..<8 {
                let (connection, _) = try SocketConnection.opened(to: server, timeout: .seconds(20))
                try connection.sendAll(Request(after: 0, flags: [.follow]).frame)
                #expect(try connection.readFrame().type == .journal)
                followers.append(connection)
            }
            #expect(waitUntil(timeout: 20) { server.connectionStatistics.count == 8 })
            for connection in followers { connection.reset() }
            followers = []
            #expect(waitUntil(timeout: 20) { server.connectionStatistics.isEmpty })
        }
        try client(of: server, into: directory.path("replica")).run()
    }
}

extension SocketConnection {
    /// Closes with a reset (linger 0), as a crashed peer's kernel does.
    func reset() {
        var value = linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<linger>.size))
    }
}
