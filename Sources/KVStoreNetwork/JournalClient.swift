import Foundation
import KVStore
import NIOConcurrencyHelpers

/// Replicates a ``JournalServer``'s store into a replica at a path, over TCP
/// (``ReplicationProtocol``): exactly once, each source commit applied in one transaction with
/// the replica's checkpoint.
///
/// ```swift
/// let client = JournalClient(host: "127.0.0.1", port: 7070, replica: "/var/db/replica",
///                            options: JournalClient.Options(follow: true))
/// Thread {                                  // applies, then follows until stopped
///     try? client.run { status in print("lag", status.lag) }
/// }.start()
/// // … later, from any thread
/// client.stop()
/// ```
/// It reports as KVStore's `Replicator` does (the same `Replicator.Status`), which
/// replicates from a store on this machine.
///
/// A server off loopback speaks TLS and asks for a token or a client certificate:
/// ```swift
/// var options = JournalClient.Options(follow: true)
/// options.tls = try JournalClient.TLS(trustRootsFile: "/etc/kvstore/ca.pem")
/// options.token = try ReplicationToken(contentsOfFile: "/etc/kvstore/token")
/// let client = JournalClient(host: "db1.example", port: 7070, replica: "/var/db/replica", options: options)
/// ```
/// A refusal (a wrong token, a certificate not trusted) is thrown, never retried.
/// Without ``Options/follow`` the client applies the source's journal through the sequence that
/// was last when it connected, and returns. With it, it applies commits as the server pushes
/// them and reconnects when the server goes away (a restart), with a growing delay
/// (``Options/reconnectDelay``), resuming after its checkpoint: nothing is lost or applied twice.
///
/// A replica behind the source's truncation point (the journal no longer holds the entry after
/// its checkpoint) is reseeded from a snapshot of the source when ``Options/reseedWhenBehind``
/// (the default): the replica at the path is replaced whole by a copy of the source's records,
/// and applying continues from the snapshot's sequence.
public final class JournalClient: Sendable {
    /// How a client replicates.
    public struct Options: Sendable {
        /// Keep applying new commits, reconnecting when the connection is lost, until ``stop()``.
        public var follow = false
        /// A new replica (nothing at the path yet) starts from a snapshot of the source rather
        /// than from the source's journal (`kvstore replicate --snapshot`).
        public var startFromSnapshot = false
        /// A replica behind the source's truncation point is reseeded from a snapshot (default);
        /// when false, the server's refusal is thrown instead.
        public var reseedWhenBehind = true
        /// The wait before reconnecting: from the lower bound, doubling after each failure up to
        /// the upper (default 0.1…5 s).
        public var reconnectDelay: ClosedRange<Duration> = .milliseconds(100) ... .seconds(5)
        /// How long connecting may take, and how long the server may stay silent (it sends a
        /// position every second to a following replica) before the connection counts as lost.
        public var timeout: Duration = .seconds(10)
        /// How the replica store is opened (created when nothing is at the path).
        public var storeOptions = Store.Options()
        /// TLS 1.3, verifying the server's certificate (for the host connected to) against these
        /// roots, with this client's certificate when it has one; nil (the default): plain TCP.
        public var tls: JournalClient.TLS?
        /// The token the server asks for; nil (the default): none. Without ``tls`` it is sent
        /// only to a server on a loopback address: elsewhere the client refuses to connect.
        public var token: ReplicationToken?

        /// Options that follow (or not) and start a new replica from a snapshot (or not); the rest
        /// have their defaults: plain TCP, no token, reseeding when behind.
        public init(follow: Bool = false, startFromSnapshot: Bool = false) {
            self.follow = follow
            self.startFromSnapshot = startFromSnapshot
        }
    }

    /// The server, `tcp://HOST:PORT`.
    public let server: String
    /// The replica's directory.
    public let path: String
    /// How the client replicates.
    public let options: Options
    private let host: String
    private let port: Int

    private struct State {
        var stopped = false
        var connection: SocketConnection?
    }

    private let state = NIOLockedValueBox(State())

    /// A client of the journal server at `host`:`port` replicating into the store at `replica`.
    public init(host: String, port: Int, replica: String, options: Options = Options()) {
        self.host = host
        self.port = port
        self.path = replica
        self.options = options
        server = "tcp://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Replicates: once through the source's last sequence, or — following — until ``stop()``,
    /// calling `progress` when a stream starts (after a reseed: with the snapshot's sequence
    /// applied) and after each applied batch. Blocks; run it on a thread of its own to
    /// follow.
    /// - Returns: the last status.
    /// - Throws: ``ReplicationConnectionError`` (without follow, or when the server refuses:
    ///   a following client retries only when the connection was lost or the server was busy),
    ///   `JournalApplyError`, `JournalStreamError` (the server's own message when its export
    ///   failed mid-stream: `sourceFailed`; a following client truncated past reconnects on
    ///   `sourceInterrupted`), `StoreError`.
    @discardableResult
    public func run(progress: ((Replicator.Status) -> Void)? = nil) throws -> Replicator.Status {
        var status = Replicator.Status(source: UUID(), replica: UUID())
        SeedingLeftovers.remove(beside: path)
        defer { state.withLockedValue { $0.connection = nil } }
        var delay = options.reconnectDelay.lowerBound
        while !isStopped {
            do {
                let (connection, hello) = try connect()
                delay = options.reconnectDelay.lowerBound
                status.source = hello.storeID
                status.sourceLastSequence = max(status.sourceLastSequence, hello.lastSequence)
                try replicate(over: connection, hello: hello, &status, progress: progress)
                if !options.follow { break }
            } catch {
                if isStopped { break }
                guard options.follow, Self.isTransient(error) else { throw error }
                Thread.sleep(forTimeInterval: delay.seconds)
                delay = min(delay * 2, options.reconnectDelay.upperBound)
            }
        }
        return status
    }

    /// Ends ``run(progress:)`` from any thread: the connection is closed (a commit half received is not
    /// applied) and `run` returns.
    public func stop() {
        let connection = state.withLockedValue { state in
            state.stopped = true
            return state.connection
        }
        connection?.shutDown()
    }

    private var isStopped: Bool { state.withLockedValue { $0.stopped } }

    /// Connects (over TLS with ``Options/tls``), sends the opening with the token, and reads the
    /// server's hello.
    private func connect() throws -> (connection: SocketConnection, hello: Hello) {
        let connection = if let tls = options.tls {
            try TLSConnection.connect(host: host, port: port, tls: tls, timeout: options.timeout)
        } else {
            try SocketConnection(host: host, port: port, timeout: options.timeout)
        }
        let stopped = state.withLockedValue { state in
            state.connection = connection
            return state.stopped
        }
        if stopped { connection.shutDown() }
        if options.token != nil && options.tls == nil && !connection.peerIsLoopback {
            throw ReplicationConnectionError(.insecure, server: server, "refusing to send the token unencrypted to an address that is not loopback: connect with TLS")
        }
        try connection.sendAll(ClientOpening(token: options.token?.bytes ?? []).bytes)
        let greeting = try readGreeting(connection)
        guard greeting.prefix(ReplicationProtocol.magic.count).elementsEqual(ReplicationProtocol.magic) else {
            throw ReplicationConnectionError(.malformed, server: server, "not a kvstore journal server (its first bytes are not the replication protocol's)")
        }
        let version = Array(greeting.suffix(2)).littleEndian(at: 0, as: UInt16.self)
        guard version == ReplicationProtocol.version else {
            throw ReplicationConnectionError(.newerProtocol, server: server, "the server speaks replication protocol \(version), this kvstore \(ReplicationProtocol.version); use the same kvstore on both sides")
        }
        let frame = try answer(connection, expecting: [.hello])
        guard let hello = Hello(payload: frame.payload) else {
            throw ReplicationConnectionError(.malformed, server: server, "the server's hello is malformed (\(frame.payload.count) bytes, not 32)")
        }
        return (connection, hello)
    }

    /// The server's first bytes, its magic and version. A plain client that gets a TLS record (a
    /// TLS server's alert) instead is told the server speaks TLS.
    private func readGreeting(_ connection: SocketConnection) throws(ReplicationConnectionError) -> [UInt8] {
        do {
            return try connection.read(ReplicationProtocol.greeting.count)
        } catch where error.code == .connectionLost && options.tls == nil {
            let received = connection.takeBuffered()
            if received.count >= 2 && (received[0] == 0x15 || received[0] == 0x16) && received[1] == 0x03 {
                throw ReplicationConnectionError(.tlsFailed, server: server, "the server speaks TLS: connect with TLS")
            }
            throw error
        }
    }

    /// Requests, reseeds when answered with a snapshot, then applies the stream until it ends
    /// (through the source's last sequence; following, when the server shuts down).
    private func replicate(over connection: SocketConnection, hello: Hello, _ status: inout Replicator.Status, progress: ((Replicator.Status) -> Void)?) throws {
        var store = StoreDirectory.isEmpty(atPath: path) ? nil : try openReplica()
        var wantsSnapshot = store == nil && options.startFromSnapshot
        while true {
            let checkpoint = try store?.read { try $0.replicationCheckpoint(for: hello.storeID) } ?? 0
            var flags: Request.Flags = []
            if options.follow { flags.insert(.follow) }
            if options.reseedWhenBehind { flags.insert(.acceptsSnapshot) }
            if wantsSnapshot { flags.insert(.wantsSnapshot) }
            try connection.sendAll(Request(after: checkpoint, flags: flags).frame)
            let frame = try answer(connection, expecting: [.journal, .snapshotData])
            if frame.type == .snapshotData {
                store = nil   // the replica is replaced: nothing may hold it open
                store = try receiveSnapshot(startingWith: frame, over: connection)
                status.reseeds += 1
                wantsSnapshot = false
                continue
            }
            let replica = try store ?? openReplica()
            status.replica = replica.id
            status.appliedSequence = checkpoint
            progress?(status)
            let reader = try JournalStreamReader(start: connection.takeBuffered(), fileDescriptor: connection.descriptor)
            let base = status
            var latest = status
            defer { status = latest }   // what was applied stays counted when the stream breaks
            let summary = try replica.applyJournal(reader) { entries in
                latest.applied += entries   // applied or skipped: told apart at the end
                latest.appliedSequence = (try? replica.read { try $0.replicationCheckpoint(for: hello.storeID) }) ?? latest.appliedSequence
                latest.sourceLastSequence = max(latest.sourceLastSequence, reader.sourceLastSequence ?? 0, latest.appliedSequence)
                progress?(latest)
            }
            latest.applied = base.applied + summary.applied
            latest.skipped = base.skipped + summary.skipped
            latest.appliedSequence = summary.checkpoint
            latest.sourceLastSequence = max(latest.sourceLastSequence, reader.sourceLastSequence ?? 0, summary.checkpoint)
            return
        }
    }

    /// Receives a snapshot into a file beside the replica, then seeds the replica from it.
    private func receiveSnapshot(startingWith first: ProtocolFrame, over connection: SocketConnection) throws -> Store {
        var options = options.storeOptions
        options.createIfMissing = true
        return try SeedingLeftovers.withSnapshotFile(beside: path) { descriptor, file in
            var received: UInt64 = 0
            var frame = first
            while frame.type == .snapshotData {
                if let failure = frame.payload.withUnsafeBytes({ FileWriting.writeAll($0, to: descriptor) }) {
                    throw FileWriting.failure(failure, writing: "the snapshot received from \(server)", to: file, path: path)
                }
                received += UInt64(frame.payload.count)
                frame = try answer(connection, expecting: [.snapshotData, .snapshotEnd])
            }
            guard frame.payload.count == 8, frame.payload.littleEndian(at: 0, as: UInt64.self) == received else {
                throw ReplicationConnectionError(.malformed, server: server, "the snapshot's end frame does not match the \(received) bytes received")
            }
            return try Store.seedReplica(at: path, fromSnapshot: file, options: options)
        }
    }

    /// Reads the server's next frame: one of `expected`, or its error frame (thrown).
    private func answer(_ connection: SocketConnection, expecting expected: [ReplicationProtocol.FrameType]) throws -> ProtocolFrame {
        let frame = try connection.readFrame()
        if frame.type == .error, let kind = frame.payload.first {
            let message = String(decoding: frame.payload.dropFirst(), as: UTF8.self)
            throw ReplicationConnectionError(kind == 2 ? .busy : .refused, server: server, message)
        }
        guard expected.contains(frame.type) else {
            throw ReplicationConnectionError(.malformed, server: server, "the server sent a '\(Character(Unicode.Scalar(frame.type.rawValue)))' frame out of turn")
        }
        return frame
    }

    /// Opens the replica, creating it when nothing is at the path (or an empty directory).
    private func openReplica() throws -> Store {
        var options = options.storeOptions
        options.createIfMissing = StoreDirectory.isEmpty(atPath: path)
        return try Store(path: path, options: options)
    }

    /// Whether a following client should reconnect after `error`.
    private static func isTransient(_ error: any Error) -> Bool {
        if let error = error as? ReplicationConnectionError { return error.isTransient }
        // `sourceInterrupted`: the journal was truncated past the stream's position while it
        // followed; the next request reseeds or is refused.
        if let error = error as? JournalStreamError { return [.truncated, .io, .sourceInterrupted].contains(error.code) }
        // The journal was truncated between the request and the stream: the next request reseeds.
        if let error = error as? JournalApplyError { return error.code == .gap }
        return false
    }
}
