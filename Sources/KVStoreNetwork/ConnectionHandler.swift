import NIOCore
import NIOSSL
import NIOTLS

/// The event-loop side of one replica's connection: reads the replica's opening (its token), then
/// gathers the bytes it sends into frames, refusing any frame larger than a request, and hands
/// them to its session. Behind the TLS handler when the server speaks TLS: a handshake that fails
/// is logged, naming why.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let session: ConnectionSession
    /// Whether a TLS handler is before this one, and whether its handshake is done.
    private let tls: Bool
    private var handshakeDone = false
    private var received: [UInt8] = []
    private var opened = false
    private var refused = false

    init(session: ConnectionSession, tls: Bool) {
        self.session = session
        self.tls = tls
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event { handshakeDone = true }
        context.fireUserInboundEventTriggered(event)
    }

    func channelActive(context: ChannelHandlerContext) {
        session.accepted()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard !refused else { return }
        received += buffer.readBytes(length: buffer.readableBytes) ?? []
        if !opened {
            do {
                guard let (opening, length) = try ClientOpening.decode(received[...]) else { return }
                received.removeFirst(length)
                opened = true
                session.opened(opening)
            } catch {
                refuse(error.message)
                return
            }
        }
        do {
            while let (frame, length) = try ProtocolFrame.decode(received[...], limit: ReplicationProtocol.maxRequestFrame) {
                received.removeFirst(length)
                guard session.received(frame) else {
                    refused = true   // the rest is not read: refused or disconnected, once
                    received = []
                    return
                }
            }
        } catch {
            refuse("the replica sent a bad frame: \(error.message)")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let unopened = switch (tls, handshakeDone) {
        case (false, _): "it closed the connection without its opening"
        case (true, false): TLSFailure.replicaLeft("during")
        case (true, true): TLSFailure.replicaLeft("after")
        }
        session.closed(unopened: unopened)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !(error is IOError || error is ChannelError) {
            let certificate = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self).peerCertificate
            session.tlsFailed(TLSFailure.describe(error, peer: .replica, certificate: certificate))
        }
        context.close(promise: nil)
    }

    private func refuse(_ message: String) {
        refused = true
        received = []
        session.refuse(message)
    }
}
