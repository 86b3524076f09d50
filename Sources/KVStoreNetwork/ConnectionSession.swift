import Foundation
import KVStore
import NIOConcurrencyHelpers
import NIOCore

/// One replica's connection to a ``JournalServer``: the greeting, the request, then a stream
/// (or a snapshot and another request), written from a thread of its own — reading the store is
/// blocking work that stays off the event loop — through an ``OutboundWindow``.
final class ConnectionSession: Sendable {
    private enum Phase {
        case greeting
        /// Waiting for request number `turn` (0: the first, which has a time-out).
        case awaitingRequest(turn: Int)
        /// Serving a request that has not started following (yet).
        case busy
        case following(JournalFollower)
        /// The server is stopping: no new request, a following stream ends.
        case stopping
        case closed
    }

    let window: OutboundWindow
    private let server: JournalServer
    private let channel: any Channel
    private let phase = NIOLockedValueBox(Phase.greeting)
    private let lastWrite = NIOLockedValueBox<EventLoopFuture<Void>?>(nil)
    /// Requests awaited so far, to tell a time-out's request from a later one.
    private let turns = NIOLockedValueBox(0)
    private let peer: String

    init(server: JournalServer, channel: any Channel) {
        self.server = server
        self.channel = channel
        window = OutboundWindow(highWaterMark: server.configuration.highWaterMark, stallTimeout: server.configuration.stallTimeout)
        peer = channel.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "a replica"
    }

    private var store: Store { server.store }

    /// Whether the replica follows the journal (it gets position frames).
    var isFollowing: Bool {
        phase.withLockedValue { if case .following = $0 { true } else { false } }
    }

    // MARK: Event loop

    /// The connection opened: greets the replica with the source's hello, or refuses it.
    func greet() {
        if let refusal = server.admit(self) {
            server.log("refused \(peer): \(refusal)")
            write(ReplicationProtocol.greeting + ReplicationProtocol.errorFrame(refusal, busy: true))
            closeAfterWrites()
            return
        }
        do {
            let (first, last) = try journalRange()
            write(ReplicationProtocol.greeting + Hello(storeID: store.id, firstSequence: first, lastSequence: last).frame)
            phase.withLockedValue { if case .greeting = $0 { $0 = .awaitingRequest(turn: 0) } }
            awaitRequest(turn: 0)
        } catch {
            refuse("the server cannot read its store: \(error)")
        }
    }

    /// A frame arrived from the replica.
    func received(_ frame: ProtocolFrame) {
        enum Turn { case accepted, stopping, outOfTurn }
        let turn = phase.withLockedValue { phase -> Turn in
            switch phase {
            case .awaitingRequest:
                phase = .busy
                return .accepted
            case .stopping: return .stopping
            default: return .outOfTurn
            }
        }
        switch turn {
        case .accepted: break
        case .stopping:
            refuse("the server is shutting down", busy: true)
            return
        case .outOfTurn:
            // A replica sends nothing while it is served: it does not speak this protocol.
            server.log("disconnected \(peer): it sent a frame while being served")
            disconnect()
            return
        }
        guard frame.type == .request, let request = Request(payload: frame.payload) else {
            refuse("the replica sent a '\(Character(Unicode.Scalar(frame.type.rawValue)))' frame of \(frame.payload.count) bytes where a request (9 bytes) was expected")
            return
        }
        server.streams.enter()
        Thread { [self] in
            defer { server.streams.leave() }
            serve(request)
        }.start()
    }

    /// The connection closed (either side).
    func closed() {
        window.close()
        let follower = phase.withLockedValue { phase -> JournalFollower? in
            defer { phase = .closed }
            if case .following(let follower) = phase { return follower }
            return nil
        }
        follower?.stop()
        server.remove(self)
        server.log("disconnected \(peer)")
    }

    // MARK: Any thread

    /// Sends `message` as an error frame (`busy`: asking again later may work), then closes the
    /// connection.
    func refuse(_ message: String, busy: Bool = false) {
        server.log("refused \(peer): \(message)")
        write(ReplicationProtocol.errorFrame(message, busy: busy))
        closeAfterWrites()
    }

    /// Tells the replica the source's last sequence, if it follows and its window has room (a
    /// busy stream gets the next one).
    func offerPosition(_ last: UInt64) {
        let frame = JournalStream.positionFrame(lastSequence: last)
        // Under the phase lock: a stop cannot queue the stream's end frame before this one.
        phase.withLockedValue { phase in
            guard case .following = phase, window.reserveIfRoom(frame.count) else { return }
            write(frame, counted: true)
        }
    }

    /// Refuses the replica if request `turn` has not arrived within the request time-out.
    private func awaitRequest(turn: Int) {
        let timeout = server.configuration.requestTimeout
        let nanoseconds = Int64(min(timeout.seconds, 1e9) * 1e9)
        channel.eventLoop.scheduleTask(in: .nanoseconds(max(0, nanoseconds))) { [self] in
            let silent = phase.withLockedValue { phase in
                guard case .awaitingRequest(turn) = phase else { return false }
                phase = .closed   // a request arriving now is out of turn
                return true
            }
            if silent { refuse("the replica sent no request within \(timeout)") }
        }
    }

    /// The server stops: a following stream ends with its end frame; an idle connection closes.
    func stop() {
        let (follower, idle) = phase.withLockedValue { phase -> (JournalFollower?, Bool) in
            switch phase {
            case .following(let follower):
                phase = .stopping
                return (follower, false)
            case .greeting, .awaitingRequest:
                phase = .stopping
                return (nil, true)
            case .busy:
                phase = .stopping
                return (nil, false)
            case .stopping, .closed:
                return (nil, false)
            }
        }
        follower?.stop()
        if idle { disconnect() }
    }

    /// Closes the connection now, abandoning what was not sent.
    func disconnect() {
        window.close()
        channel.close(promise: nil)
    }

    // MARK: The session's thread

    private func serve(_ request: Request) {
        var streaming = false   // the journal stream began: an error ends it with its own error frame
        do {
            let (first, last) = try journalRange()
            if request.after > last {
                refuse("the replica has applied the source through sequence \(request.after), but the source's journal ends at \(last): it is not a copy of this source's history (restored from an older backup?)")
                return
            }
            let behind = request.after + 1 < first   // after ≤ last: no overflow
            if request.flags.contains(.wantsSnapshot) || (behind && request.flags.contains(.acceptsSnapshot)) {
                server.log("sending \(peer) a snapshot")
                try sendSnapshot()
                let turn = turns.withLockedValue { $0 += 1; return $0 }
                let stopping = phase.withLockedValue { phase -> Bool in
                    if case .busy = phase { phase = .awaitingRequest(turn: turn); return false }
                    return true
                }
                // No time-out for the next request: the replica may take long to seed itself.
                if stopping { closeAfterWrites() }
                return
            }
            if behind {
                refuse("journal truncated past \(request.after): the source's journal starts at \(first), the replica has applied through \(request.after); reseed with --snapshot")
                return
            }
            server.log("streaming to \(peer) after sequence \(request.after)\(request.flags.contains(.follow) ? ", following" : "")")
            try send(ReplicationProtocol.frame(.journal))
            streaming = true
            if request.flags.contains(.follow) {
                try store.exportJournal(since: request.after + 1, following: server.configuration.follow, onStart: startFollowing, to: send)
            } else {
                try store.exportJournal(since: request.after + 1, to: send)
            }
            closeAfterWrites()
        } catch is OutboundWindow.Closed {
            // The replica left (nothing to tell it), or stopped reading: it goes.
            if window.isStalled {
                server.log("disconnected \(peer): it read nothing for \(server.configuration.stallTimeout)")
                disconnect()
            }
        } catch {
            if streaming && !window.isClosed {
                // The export ended the stream with an error frame naming the problem.
                server.log("stream to \(peer) failed: \(error)")
                closeAfterWrites()
            } else if isFollowing || window.isClosed {
                server.log("stream to \(peer) failed: \(error)")
                disconnect()
            } else {
                refuse("the server failed: \(error)")
            }
        }
    }

    /// The follow export sent its header: position frames may go now.
    private func startFollowing(_ follower: JournalFollower) {
        let stopping = phase.withLockedValue { phase -> Bool in
            guard case .busy = phase else { return true }
            phase = .following(follower)
            return false
        }
        if stopping { follower.stop(); return }
        if let last = try? store.read({ try $0.lastSequence() }) { offerPosition(last) }
    }

    /// Sends a compacted copy of the store's data file in snapshot frames, then the snapshot end.
    private func sendSnapshot() throws {
        var total: UInt64 = 0
        try SnapshotPipe.stream(of: store, chunk: ReplicationProtocol.maxServerFrame - ReplicationProtocol.framePrefix - 4) { chunk in
            total += UInt64(chunk.count)
            try send(ReplicationProtocol.frame(.snapshotData, chunk))
        }
        var payload: [UInt8] = []
        payload.appendLittleEndian(total)
        try send(ReplicationProtocol.frame(.snapshotEnd, payload))
    }

    /// Sends `bytes` once the window has room for them (waiting, so a slow replica holds the
    /// stream back). - Throws: ``OutboundWindow/Closed`` once the connection closed.
    private func send(_ bytes: [UInt8]) throws {
        try window.reserve(bytes.count)
        write(bytes, counted: true)
    }

    /// The store's oldest and newest sequence: the journal's first entry (the last + 1 when it
    /// holds none) and last.
    private func journalRange() throws -> (UInt64, UInt64) {
        try store.read { txn in
            let last = try txn.lastSequence()
            return (try txn.firstSequence() ?? last + 1, last)
        }
    }

    /// Queues `bytes` for the channel; `counted` bytes were reserved in the window and are
    /// released once written. Always through the event loop's queue, even on the event loop: so
    /// bytes go out in the order they were queued from any thread (a position frame never passes
    /// the stream's start queued before it), and no channel handler runs inside the caller (a
    /// write that fails closes the channel, whose handlers take this session's locks).
    private func write(_ bytes: [UInt8], counted: Bool = false) {
        let channel = channel
        let future = channel.eventLoop.flatSubmit { channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)) }
        if counted {
            let (window, count) = (window, bytes.count)
            future.whenComplete { _ in window.release(count) }
        }
        lastWrite.withLockedValue { $0 = future }
    }

    /// Closes the connection once what was written went out.
    private func closeAfterWrites() {
        let channel = channel
        guard let last = lastWrite.withLockedValue({ $0 }) else { channel.close(promise: nil); return }
        last.whenComplete { _ in channel.close(promise: nil) }
    }
}
