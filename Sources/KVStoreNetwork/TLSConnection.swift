#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// A client's TLS connection to a journal server, as a blocking ``SocketConnection`` the client
/// reads and writes like a plain one: the TCP connection is made as for plain TCP, then handed to
/// a SwiftNIO channel that speaks TLS and relays the plain bytes to one end of a socket pair, the
/// other end being the connection's descriptor. The relay reads from either side only while the
/// other can take it, so the replica still reads — and the server sends — only as fast as the
/// replica applies.
enum TLSConnection {
    /// Connects to `host`:`port`, completes the TLS handshake (the server's certificate verified,
    /// for `host`) within `timeout`, and returns the connection.
    /// - Throws: ``ReplicationConnectionError``: `unreachable`, `tlsFailed` naming why (the
    ///   server's certificate expired, is signed by another CA, is for another host; the server
    ///   does not speak TLS), `connectionLost`.
    static func connect(host: String, port: Int, tls: JournalClient.TLS, timeout: Duration) throws(ReplicationConnectionError) -> SocketConnection {
        let tcp = try SocketConnection(host: host, port: port, timeout: timeout)
        let server = tcp.server
        var pair: [Int32] = [-1, -1]
        #if os(Linux)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &pair) == 0 else {
            throw ReplicationConnectionError(.connectionLost, server: server, "cannot make a socket pair for TLS: \(String(cString: strerror(errno)))")
        }
        let (local, relayed) = (pair[0], pair[1])
        let failure = NIOLockedValueBox<ReplicationConnectionError?>(nil)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let handshake = loop.makePromise(of: Void.self)
        let watcher = HandshakeWatcher(server: server, host: host, handshake: handshake, failure: failure)
        let deadline = loop.scheduleTask(in: .of(timeout)) {
            handshake.fail(ReplicationConnectionError(.connectionLost, server: server, "connection lost: the TLS handshake took longer than \(timeout)"))
        }
        let channels = loop.submit { GlueHandler.matchedPair() }.flatMap { tlsGlue, relayGlue in
            let (tlsGlue, relayGlue) = (NIOLoopBound(tlsGlue, eventLoop: loop), NIOLoopBound(relayGlue, eventLoop: loop))
            return ClientBootstrap(group: loop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(relayGlue.value) }
                }
                .withConnectedSocket(relayed)
                .flatMap { relay in
                    ClientBootstrap(group: loop)
                        .channelInitializer { channel in
                            channel.eventLoop.makeCompletedFuture {
                                let tlsHandler = try NIOSSLClientHandler(context: tls.context, serverHostname: isAddress(host) ? nil : host)
                                try channel.pipeline.syncOperations.addHandlers(tlsHandler, HandshakeWatcher.Handler(watcher), tlsGlue.value)
                            }
                        }
                        .withConnectedSocket(tcp.detach())
                        .map { (relay, $0) }
                }
        }
        defer { deadline.cancel() }
        do {
            let (relay, channel) = try channels.wait()
            do {
                try handshake.futureResult.wait()
            } catch {
                channel.close(promise: nil)
                relay.close(promise: nil)
                throw error
            }
        } catch {
            close(local)
            throw error as? ReplicationConnectionError ?? ReplicationConnectionError(.connectionLost, server: server, "connection lost: \(error)")
        }
        return SocketConnection(connected: local, server: server, timeout: timeout) { failure.withLockedValue { $0 } }
    }

    /// Whether `host` is an IP address (which verification checks against the certificate's IP
    /// names, and which is never sent as the server name).
    private static func isAddress(_ host: String) -> Bool {
        var scratch = in6_addr()
        return inet_pton(AF_INET, host, &scratch) == 1 || inet_pton(AF_INET6, host, &scratch) == 1
    }
}

/// Sees the client's TLS handshake through: completes `handshake` when it is done, or fails it —
/// and keeps why, for a connection that fails later (a server that refuses the client's
/// certificate says so after the client's side of the handshake is done).
private final class HandshakeWatcher: Sendable {
    let server: String
    let host: String
    let handshake: EventLoopPromise<Void>
    let failure: NIOLockedValueBox<ReplicationConnectionError?>

    init(server: String, host: String, handshake: EventLoopPromise<Void>, failure: NIOLockedValueBox<ReplicationConnectionError?>) {
        self.server = server
        self.host = host
        self.handshake = handshake
        self.failure = failure
    }

    final class Handler: ChannelInboundHandler {
        typealias InboundIn = NIOAny
        private let watcher: HandshakeWatcher

        init(_ watcher: HandshakeWatcher) { self.watcher = watcher }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? TLSUserEvent, case .handshakeCompleted = event { watcher.handshake.succeed(()) }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            let certificate = try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).peerCertificate
            let message = TLSFailure.describe(error, peer: .server, certificate: certificate, host: watcher.host)
            let code: ReplicationConnectionError.Code = TLSFailure.isConnectionLoss(error) ? .connectionLost : .tlsFailed
            let failure = ReplicationConnectionError(code, server: watcher.server, code == .connectionLost ? "connection lost: \(message)" : message)
            watcher.failure.withLockedValue { if $0 == nil { $0 = failure } }
            watcher.handshake.fail(failure)
            context.fireErrorCaught(error)
        }

        func channelInactive(context: ChannelHandlerContext) {
            watcher.handshake.fail(watcher.failure.withLockedValue { $0 }
                ?? ReplicationConnectionError(.connectionLost, server: watcher.server, "connection lost: the server closed the connection during the TLS handshake"))
            context.fireChannelInactive()
        }
    }
}
