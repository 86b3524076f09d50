import Foundation
import KVStore
@testable import KVStoreNetwork
import Testing
import TestSupport

/// A hostile review of serve's TLS, tokens and pending-connection limits: what a client that
/// does not play by the protocol, or a flood of connections, can do to the server.
@Suite(.tags(.network, .subprocess), .skippedByTag, .serialized) struct SecurityReviewTests {
    /// The log lines about the connection from `port` (the client's local port).
    private func lines(_ log: Failures, about port: Int) -> [String] {
        log.all.filter { $0.contains("127.0.0.1:\(port)") }
    }

    @Test(arguments: [(true, false), (false, false), (false, true)])
    func framesPipelinedBehindAnOpeningAreNotLoggedOneLineEach(rightToken: Bool, garbage: Bool) throws {
        let fixture = try TLSFixture()
        let server = try fixture.server(.init(identity: nil))
        defer { server.stop() }
        let connection = try SocketConnection(host: server.host, port: server.port, timeout: .seconds(30))
        let port = try #require(localPort(of: connection.descriptor))
        let token = rightToken ? fixture.token.bytes : Array("a-wrong-token-0123456789".utf8)
        let frames = garbage ? Array("GET / HTTP/1.1\r\n".utf8) : (0..<200).flatMap { _ in Request(after: 0, flags: []).frame }

        try connection.sendAll(ClientOpening(token: token).bytes + frames)
        var received: [UInt8] = []
        while let byte = try? connection.read(1) { received += byte }

        #expect(waitUntil { lines(fixture.log, about: port).contains("disconnected 127.0.0.1:\(port)") })
        let logged = lines(fixture.log, about: port)
        // Its refusal or "it sent a frame while being served", "disconnected", and maybe "streaming to".
        #expect(logged.count <= 3, "\(logged.count) lines for one connection: \(logged.prefix(4))")
        #expect(logged.filter { $0.hasPrefix("refused ") }.count <= 1, "refused more than once: \(logged)")
        if !rightToken {
            // A refused client gets its refusal, not a cut connection.
            #expect(received == ReplicationProtocol.greeting + ReplicationProtocol.errorFrame("wrong token", busy: false))
        }
    }

    @Test func hundredsOfRefusedTLSConnectionsLeaveNoSocketOpen() throws {
        let fixture = try TLSFixture()
        let server = try fixture.server()
        let port = server.port
        var refused = 0
        for round in 0..<60 {
            let security: TLSFixture.ClientSecurity = switch round % 3 {
            case 0: .init(token: "a-wrong-token-0123456789")
            case 1: .init(tls: false)   // a plain client to a TLS server
            default: .init(identity: \.foreignClient)
            }
            if (try? fixture.client(of: server, into: "replica-\(round)", security).run()) == nil { refused += 1 }
            let garbage = try SocketConnection(host: server.host, port: port, timeout: .seconds(30))
            try garbage.sendAll(Array("GET / HTTP/1.1\r\n\r\n".utf8))
            _ = try? garbage.read(1)
        }
        #expect(refused == 40)   // the foreign client certificate is fine: this server asks for a token only
        server.stop()

        #expect(waitUntil(timeout: 10) { openSockets(onPort: port) == 0 }, "\(openSockets(onPort: port)) sockets on port \(port) still open")
    }

    @Test func stoppingWithTLSHandshakesPendingReturnsAndClosesThem() throws {
        let fixture = try TLSFixture()
        let server = try fixture.server() { $0.handshakeTimeout = .seconds(600) }
        let port = server.port
        let hello = try clientHello(port: port)
        let pending = try (0..<20).map { i in
            let connection = try SocketConnection(host: server.host, port: port, timeout: .seconds(30))
            if i % 2 == 0 { try connection.sendAll(hello) }   // half of them are inside the handshake
            return connection
        }
        #expect(waitUntil { server.pendingConnectionCount == 20 })

        let stopped = DispatchSemaphore(value: 0)
        Thread { server.stop(); stopped.signal() }.start()

        #expect(stopped.wait(timeout: .now() + 10) == .success)
        for connection in pending {
            #expect(throws: ReplicationConnectionError.self) { while true { _ = try connection.read(1) } }
        }
        #expect(waitUntil(timeout: 10) { openSockets(onPort: port) == pending.count })   // only the clients' ends
    }

    @Test func aFloodOfNewConnectionsDoesNotKeepATLSReplicaOutForever() throws {
        let fixture = try TLSFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let done = Flag()
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            Thread {
                // Each keeps its 40 newest connections: every new one evicts someone's oldest.
                var ring: [SocketConnection] = []
                let deadline = Date() + 60
                while !done.isSet && Date() < deadline {
                    if let connection = try? SocketConnection(host: server.host, port: server.port, timeout: .seconds(5)) { ring.append(connection) }
                    if ring.count > 40 { ring.removeFirst() }
                }
                finished.signal()
            }.start()
        }
        defer { done.set(); finished.wait(); finished.wait() }
        #expect(waitUntil { fixture.log.all.filter { $0.hasPrefix("dropped ") }.count > 200 })

        var options = try fixture.options()
        options.timeout = .seconds(5)
        var failures: [String] = []
        for attempt in 0..<3 {
            let client = JournalClient(host: server.host, port: server.port, replica: fixture.directory.path("replica-\(attempt)"), options: options)
            do {
                try client.run()
                break
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.count < 3, "the replica never got in: \(failures)")
    }
}

/// The local port of the connected socket `descriptor`.
private func localPort(of descriptor: Int32) -> Int? {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let status = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    return status == 0 ? Int(UInt16(bigEndian: address.sin_port)) : nil
}

/// TCP sockets of this machine with `port` at either end that a process holds open (an inode:
/// not TIME_WAIT), from /proc/net/tcp and tcp6.
private func openSockets(onPort port: Int) -> Int {
    var count = 0
    for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
        // Read to the end: the kernel makes these files a page at a time.
        guard let handle = FileHandle(forReadingAtPath: file) else { continue }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        try? handle.close()
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9 else { continue }
            let ports = fields[1...2].compactMap { $0.split(separator: ":").last.flatMap { Int($0, radix: 16) } }
            if ports.contains(port) && fields[9] != "0" { count += 1 }
        }
    }
    return count
}

/// The first bytes a TLS 1.3 client sends (its ClientHello), as `openssl s_client` sends them to
/// a listener of our own on loopback.
private func clientHello(port _: Int) throws -> [UInt8] {
    let listener = try ServerSocket()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: TestCertificates.openssl)
    process.arguments = ["s_client", "-connect", "127.0.0.1:\(listener.port)", "-tls1_3", "-quiet"]
    process.standardInput = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer { process.terminate(); process.waitUntilExit() }
    return try listener.acceptAndRead()
}

/// A listening socket on 127.0.0.1 that takes one connection and reads what it sends first.
private final class ServerSocket {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && listen(descriptor, 1) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        try #require(bound)
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    func acceptAndRead() throws -> [UInt8] {
        let connection = accept(descriptor, nil, nil)
        try #require(connection >= 0)
        defer { close(connection) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress!, $0.count, 0) }
        try #require(n > 0)
        return Array(buffer.prefix(n))
    }
}
