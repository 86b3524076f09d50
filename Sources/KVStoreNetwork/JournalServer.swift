import Dispatch
import Foundation
import KVStore
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// Serves a store's journal to replicas over TCP (``ReplicationProtocol``): each replica says
/// where its copy stands, and gets the journal from there — then every new commit as it commits,
/// when it follows — or a snapshot first when the journal no longer reaches back that far.
///
/// ```swift
/// let server = JournalServer(store: store)         // 127.0.0.1, a free port
/// try server.start()
/// print("listening on \(server.host):\(server.port)")
/// // … replicas connect: JournalClient, or `kvstore replicate tcp://127.0.0.1:PORT ./replica --follow`
/// server.stop()
/// ```
/// Several replicas are served at once (up to ``Configuration/maxConnections``), each by a
/// thread of its own reading the store in short read transactions; networking runs on one
/// SwiftNIO event loop. A replica that reads slowly makes its stream wait
/// (``Configuration/highWaterMark``), so it never grows the server's memory.
///
/// On a loopback address the server may speak plain TCP and ask for nothing; on any other it
/// refuses to start without TLS (``Configuration/tls``) and authentication (a token, or client
/// certificates). A connection is pending until it has authenticated, within
/// ``Configuration/handshakeTimeout``; pending connections have slots of their own
/// (``Configuration/maxPendingConnections``), so connections that never authenticate cannot
/// keep replicas out.
public final class JournalServer: Sendable {
    /// The store served.
    public let store: Store
    /// What the server was made with.
    public let configuration: Configuration

    private struct State {
        var group: MultiThreadedEventLoopGroup?
        var listener: (any Channel)?
        var positions: RepeatedTask?
        var sessions: [ObjectIdentifier: ConnectionSession] = [:]
        /// Connections not authenticated yet, with the order they came in.
        var pending: [ObjectIdentifier: (order: Int, session: ConnectionSession)] = [:]
        var arrivals = 0
        var port = 0
        var stopping = false
    }

    private let state = NIOLockedValueBox(State())
    /// The threads streaming to replicas: ``stop()`` waits for them.
    let streams = DispatchGroup()

    /// A server of `store`, not listening yet.
    public init(store: Store, configuration: Configuration = Configuration()) {
        self.store = store
        self.configuration = configuration
    }

    /// The address listened on.
    public var host: String { configuration.host }

    /// The port listened on, once started (the one the system chose for port 0).
    public var port: Int { state.withLockedValue { $0.port } }

    /// Binds the address and starts accepting replicas (in the background: this returns). Call
    /// ``stop()`` when done: it ends the streams and the event loop's thread.
    /// - Throws: ``ServerError`` when the address is not a loopback one and the configuration
    ///   lacks TLS or authentication (before binding it), when it cannot be bound (in use, not
    ///   this machine's), or the server was started before.
    public func start() throws {
        let fresh = state.withLockedValue { $0.group == nil && !$0.stopping }
        guard fresh else { throw ServerError("the journal server was started before; make a new one") }
        if let missing = configuration.missingProtection {
            throw ServerError("\(configuration.host) is not a loopback address: listening there needs \(missing)")
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let tls = configuration.tls
        var bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let session = ConnectionSession(server: self, channel: channel)
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.context)) }
                    try channel.pipeline.syncOperations.addHandler(ConnectionHandler(session: session, tls: tls != nil))
                }
            }
        if let size = configuration.socketSendBuffer {
            bootstrap = bootstrap.childChannelOption(.socketOption(.so_sndbuf), value: SocketOptionValue(size))
        }
        let listener: any Channel
        do {
            listener = try bootstrap.bind(host: configuration.host, port: configuration.port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw ServerError("cannot listen on \(configuration.host):\(configuration.port): \(error)")
        }
        // Position frames: a short read of the store's last sequence on the event loop, then
        // non-blocking offers to each following connection.
        let interval = TimeAmount.of(max(configuration.positionInterval, .milliseconds(10)))
        let positions = listener.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [weak self] _ in
            self?.sendPositions()
        }
        state.withLockedValue {
            $0.group = group
            $0.listener = listener
            $0.positions = positions
            $0.port = listener.localAddress?.port ?? configuration.port
        }
    }

    /// Stops: no new replica is accepted, following streams end with their end frame (so a
    /// replica sees a clean end, not a cut), then connections close. A replica that does not
    /// read its last bytes within two seconds is disconnected. Returns once every stream ended.
    public func stop() {
        let (group, listener, positions, sessions) = state.withLockedValue { state in
            state.stopping = true
            defer { state.group = nil; state.listener = nil; state.positions = nil }
            return (state.group, state.listener, state.positions, Array(state.sessions.values) + state.pending.values.map(\.session))
        }
        positions?.cancel()
        try? listener?.close().wait()
        for session in sessions { session.stop() }
        if streams.wait(timeout: .now() + 2) == .timedOut {
            for session in sessions { session.disconnect() }
            streams.wait()
        }
        for session in sessions { session.disconnect() }
        try? group?.syncShutdownGracefully()
    }

    /// Counts `session` among the pending connections, unless the server is stopping.
    /// - Returns: why not, or nil; and the oldest pending connection, which must go to make room
    ///   when there are too many.
    func admitPending(_ session: ConnectionSession) -> (refusal: String?, evicted: ConnectionSession?) {
        state.withLockedValue { state in
            if state.stopping { return ("the server is shutting down", nil) }
            var evicted: ConnectionSession?
            if state.pending.count >= max(1, configuration.maxPendingConnections),
               let oldest = state.pending.min(by: { $0.value.order < $1.value.order }) {
                state.pending[oldest.key] = nil
                evicted = oldest.value.session
            }
            state.arrivals += 1
            state.pending[ObjectIdentifier(session)] = (state.arrivals, session)
            return (nil, evicted)
        }
    }

    /// `session` authenticated: it counts among the replicas served, unless the server is full or
    /// stopping.
    /// - Returns: why not, or nil.
    func authenticate(_ session: ConnectionSession) -> String? {
        state.withLockedValue { state in
            state.pending[ObjectIdentifier(session)] = nil
            if state.stopping { return "the server is shutting down" }
            if state.sessions.count >= configuration.maxConnections {
                return "too many connections: this server serves at most \(configuration.maxConnections) replicas at once"
            }
            state.sessions[ObjectIdentifier(session)] = session
            return nil
        }
    }

    /// `session`'s connection closed.
    func remove(_ session: ConnectionSession) {
        state.withLockedValue { state in
            state.sessions[ObjectIdentifier(session)] = nil
            state.pending[ObjectIdentifier(session)] = nil
        }
    }

    /// Tells every following replica the source's last sequence.
    private func sendPositions() {
        let sessions = state.withLockedValue { Array($0.sessions.values) }.filter(\.isFollowing)
        guard !sessions.isEmpty, let last = try? store.read({ try $0.lastSequence() }) else { return }
        for session in sessions { session.offerPosition(last) }
    }

    /// Connections not authenticated yet (for tests).
    package var pendingConnectionCount: Int { state.withLockedValue { $0.pending.count } }

    /// Per connection: most bytes outstanding at once and sends that waited for room (for tests).
    package var connectionStatistics: [(peak: Int, waits: Int)] {
        state.withLockedValue { Array($0.sessions.values) }.map(\.window.statistics)
    }

    func log(_ line: @autoclosure () -> String) {
        configuration.log?(line())
    }
}

/// A server that cannot start: one line naming the address and the reason.
public struct ServerError: Error, Sendable, CustomStringConvertible {
    /// The address and why the server cannot start.
    public let description: String
    init(_ description: String) { self.description = description }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}

extension TimeAmount {
    /// `duration`, at least 0 and at most about 30 years.
    static func of(_ duration: Duration) -> TimeAmount {
        .nanoseconds(Int64(min(max(duration.seconds, 0), 1e9) * 1e9))
    }
}
