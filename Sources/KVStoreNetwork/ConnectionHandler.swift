import NIOCore

/// The event-loop side of one replica's connection: gathers the bytes the replica sends into
/// frames, refusing any frame larger than a request, and hands requests to its session.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let session: ConnectionSession
    private var received: [UInt8] = []
    private var refused = false

    init(session: ConnectionSession) {
        self.session = session
    }

    func channelActive(context: ChannelHandlerContext) {
        session.greet()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard !refused else { return }
        received += buffer.readBytes(length: buffer.readableBytes) ?? []
        do {
            while let (frame, length) = try ProtocolFrame.decode(received[...], limit: ReplicationProtocol.maxRequestFrame) {
                received.removeFirst(length)
                session.received(frame)
            }
        } catch {
            refused = true
            received = []
            session.refuse("the replica sent a bad frame: \(error.message)")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        session.closed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
