import Dispatch
import Foundation
import KVStore
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

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
    /// - Throws: ``ServerError`` when the address cannot be bound (in use, not this machine's),
    ///   or the server was started before.
    public func start() throws {
        let fresh = state.withLockedValue { $0.group == nil && !$0.stopping }
        guard fresh else { throw ServerError("the journal server was started before; make a new one") }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let session = ConnectionSession(server: self, channel: channel)
                    try channel.pipeline.syncOperations.addHandler(ConnectionHandler(session: session))
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
        let interval = TimeAmount.nanoseconds(Int64(max(configuration.positionInterval, .milliseconds(10)).seconds * 1e9))
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
            return (state.group, state.listener, state.positions, Array(state.sessions.values))
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

    /// Counts `session` in, unless the server is full or stopping. - Returns: why not, or nil.
    func admit(_ session: ConnectionSession) -> String? {
        state.withLockedValue { state in
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
        _ = state.withLockedValue { $0.sessions.removeValue(forKey: ObjectIdentifier(session)) }
    }

    /// Tells every following replica the source's last sequence.
    private func sendPositions() {
        let sessions = state.withLockedValue { Array($0.sessions.values) }.filter(\.isFollowing)
        guard !sessions.isEmpty, let last = try? store.read({ try $0.lastSequence() }) else { return }
        for session in sessions { session.offerPosition(last) }
    }

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
    public let description: String
    init(_ description: String) { self.description = description }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
