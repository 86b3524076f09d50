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
/// Thread { try? client.run() }.start()      // applies, then follows until stopped
/// print(client.status()?.lag ?? 0)          // source entries not applied yet
/// client.stop()
/// ```
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

        public init(follow: Bool = false, startFromSnapshot: Bool = false) {
            self.follow = follow
            self.startFromSnapshot = startFromSnapshot
        }
    }

    /// Where a replica stands.
    public struct Status: Sendable, Equatable {
        /// The source's store id.
        public var source: UUID
        /// The last source sequence applied.
        public var applied: UInt64
        /// The source's last sequence when last heard of.
        public var sourceLast: UInt64
        /// Source entries not applied yet.
        public var lag: UInt64 { sourceLast > applied ? sourceLast - applied : 0 }
    }

    /// What ``run()`` did.
    public struct Summary: Sendable, Equatable {
        /// The source's store id.
        public var source: UUID
        /// Entries applied.
        public var applied: Int
        /// Entries skipped (already applied, derived, or this replica's own).
        public var skipped: Int
        /// The last source sequence applied, at the end.
        public var checkpoint: UInt64
        /// How often the replica was seeded from a snapshot.
        public var seeded: Int
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
        var store: Store?
        var source: UUID?
        var sourceLast: UInt64 = 0
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

    /// Replicates: once through the source's last sequence, or — following — until ``stop()``.
    /// Blocks; run it on a thread of its own to follow.
    /// - Throws: ``ReplicationConnectionError`` (without follow, or when the server refuses:
    ///   a following client retries only when the connection was lost or the server was busy),
    ///   ``JournalApplyError``, ``JournalStreamError``, ``StoreError``.
    @discardableResult
    public func run() throws -> Summary {
        var total = Summary(source: UUID(), applied: 0, skipped: 0, checkpoint: 0, seeded: 0)
        defer { state.withLockedValue { $0.connection = nil; $0.store = nil } }
        var delay = options.reconnectDelay.lowerBound
        while !isStopped {
            do {
                let connected = try connect()
                delay = options.reconnectDelay.lowerBound
                let done = try replicate(over: connected.connection, hello: connected.hello, into: &total)
                if done || !options.follow { break }
            } catch {
                if isStopped { break }
                guard options.follow, Self.isTransient(error) else { throw error }
                Thread.sleep(forTimeInterval: delay.seconds)
                delay = min(delay * 2, options.reconnectDelay.upperBound)
            }
        }
        return total
    }

    /// Ends ``run()`` from any thread: the connection is closed (a commit half received is not
    /// applied) and `run` returns.
    public func stop() {
        let connection = state.withLockedValue { state in
            state.stopped = true
            return state.connection
        }
        connection?.shutDown()
    }

    /// Where the replica stands, once connected: its checkpoint for the source and the source's
    /// last sequence when last heard of.
    public func status() -> Status? {
        let (store, source, sourceLast) = state.withLockedValue { ($0.store, $0.source, $0.sourceLast) }
        guard let store, let source, let applied = try? store.read({ try $0.replicationCheckpoint(for: source) }) else { return nil }
        return Status(source: source, applied: applied, sourceLast: max(sourceLast, applied))
    }

    private var isStopped: Bool { state.withLockedValue { $0.stopped } }

    /// Connects and reads the server's hello.
    private func connect() throws -> (connection: SocketConnection, hello: Hello) {
        let connection = try SocketConnection(host: host, port: port, timeout: options.timeout)
        let stopped = state.withLockedValue { state in
            state.connection = connection
            return state.stopped
        }
        if stopped { connection.shutDown() }
        let greeting = try connection.read(ReplicationProtocol.greeting.count)
        guard greeting.prefix(ReplicationProtocol.magic.count).elementsEqual(ReplicationProtocol.magic) else {
            throw ReplicationConnectionError(.malformed, server: server, "not a kvstore journal server (its first bytes are not the replication protocol's)")
        }
        let version = Array(greeting.suffix(2)).littleEndian(at: 0, as: UInt16.self)
        guard version <= ReplicationProtocol.version, version > 0 else {
            throw ReplicationConnectionError(.newerProtocol, server: server, "the server speaks replication protocol \(version), this kvstore \(ReplicationProtocol.version); use the same kvstore on both sides")
        }
        let frame = try answer(connection, expecting: [.hello])
        guard let hello = Hello(payload: frame.payload) else {
            throw ReplicationConnectionError(.malformed, server: server, "the server's hello is malformed (\(frame.payload.count) bytes, not 32)")
        }
        state.withLockedValue {
            $0.source = hello.storeID
            $0.sourceLast = hello.lastSequence
        }
        return (connection, hello)
    }

    /// Requests, reseeds when answered with a snapshot, then applies the stream.
    /// - Returns: whether replication is done (a stream that ended at the end the server set:
    ///   not following, or the server shutting down ends a following stream, which is not done).
    private func replicate(over connection: SocketConnection, hello: Hello, into total: inout Summary) throws -> Bool {
        var isNew = ReplicaDirectory.isAbsentOrEmpty(path)
        var store = isNew ? nil : try openReplica()
        var wantsSnapshot = isNew && options.startFromSnapshot
        while true {
            let checkpoint = try store?.read { try $0.replicationCheckpoint(for: hello.storeID) } ?? 0
            var flags: Request.Flags = []
            if options.follow { flags.insert(.follow) }
            if options.reseedWhenBehind { flags.insert(.acceptsSnapshot) }
            if wantsSnapshot { flags.insert(.wantsSnapshot) }
            try connection.sendAll(Request(after: checkpoint, flags: flags).frame)
            let frame = try answer(connection, expecting: [.journal, .snapshotData])
            if frame.type == .snapshotData {
                state.withLockedValue { $0.store = nil }
                store = nil   // the replica is replaced: nothing may hold it open
                store = try receiveSnapshot(startingWith: frame, over: connection)
                state.withLockedValue { $0.store = store }
                total.seeded += 1
                isNew = false
                wantsSnapshot = false
                continue
            }
            let replica = try store ?? openReplica()
            state.withLockedValue { $0.store = replica }
            let reader = try JournalStreamReader(start: connection.takeBuffered(), fileDescriptor: connection.descriptor)
            let summary = try replica.applyJournal(reader) { [state] _ in
                if let last = reader.sourceLastSequence { state.withLockedValue { $0.sourceLast = max($0.sourceLast, last) } }
            }
            total.source = hello.storeID
            total.applied += summary.applied
            total.skipped += summary.skipped
            total.checkpoint = summary.checkpoint
            return !options.follow
        }
    }

    /// Receives a snapshot into a file beside the replica, then seeds the replica from it.
    private func receiveSnapshot(startingWith first: ProtocolFrame, over connection: SocketConnection) throws -> Store {
        let file = ReplicaDirectory.sibling(of: path, named: "snapshot-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: file, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: file) else {
            throw StoreError(.storage, "cannot write the snapshot received from \(server) to \(file)", path: path)
        }
        defer { try? FileManager.default.removeItem(atPath: file) }
        var received: UInt64 = 0
        var frame = first
        do {
            defer { try? handle.close() }
            while frame.type == .snapshotData {
                try handle.write(contentsOf: frame.payload)
                received += UInt64(frame.payload.count)
                frame = try answer(connection, expecting: [.snapshotData, .snapshotEnd])
            }
        }
        guard frame.payload.count == 8, frame.payload.littleEndian(at: 0, as: UInt64.self) == received else {
            throw ReplicationConnectionError(.malformed, server: server, "the snapshot's end frame does not match the \(received) bytes received")
        }
        var options = options.storeOptions
        options.createIfMissing = true
        return try Store.seedReplica(at: path, fromSnapshot: file, options: options)
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
        options.createIfMissing = ReplicaDirectory.isAbsentOrEmpty(path)
        return try Store(path: path, options: options)
    }

    /// Whether a following client should reconnect after `error`.
    private static func isTransient(_ error: any Error) -> Bool {
        if let error = error as? ReplicationConnectionError { return error.isTransient }
        if let error = error as? JournalStreamError { return error.code == .truncated || error.code == .io }
        // The journal was truncated between the request and the stream: the next request reseeds.
        if let error = error as? JournalApplyError { return error.code == .gap }
        return false
    }
}
