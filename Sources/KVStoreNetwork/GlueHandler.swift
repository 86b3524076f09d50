import NIOCore

/// One of two handlers that join two channels on the same event loop: what one reads, the other
/// writes. Each reads only while its partner can write (so a reader that does not keep up holds
/// the sender back, through TCP), and when one channel closes the other closes once what it was
/// handed is written (so a refusal sent just before the server closes still arrives).
final class GlueHandler: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private var partner: GlueHandler?
    private var context: ChannelHandlerContext?
    private var pendingRead = false
    private var lastWrite: EventLoopFuture<Void>?

    private init() {}

    /// Two handlers, each the other's partner: one for each channel.
    static func matchedPair() -> (GlueHandler, GlueHandler) {
        let (first, second) = (GlueHandler(), GlueHandler())
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        partner?.partnerBecameWritable()   // it may have held a read back until this side existed
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.partnerWrite(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner?.context?.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.partnerClose()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.partnerBecameWritable() }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if partner?.context?.channel.isWritable ?? false {
            context.read()
        } else {
            pendingRead = true
        }
    }

    private func partnerWrite(_ data: NIOAny) {
        guard let context else { return }
        let promise = context.eventLoop.makePromise(of: Void.self)
        context.write(data, promise: promise)
        lastWrite = promise.futureResult
    }

    /// The partner's channel closed: this one closes too, after what it was handed.
    private func partnerClose() {
        guard let context else { return }
        context.flush()
        guard let lastWrite else { context.close(promise: nil); return }
        let channel = context.channel
        lastWrite.whenComplete { _ in channel.close(promise: nil) }
    }

    private func partnerBecameWritable() {
        guard pendingRead, let context else { return }
        pendingRead = false
        context.read()
    }
}
