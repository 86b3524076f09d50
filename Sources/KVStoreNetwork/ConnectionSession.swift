import Foundation
import KVStore
import NIOConcurrencyHelpers
import NIOCore

/// One replica's connection to a ``JournalServer``: its opening (authenticated within the
/// handshake time-out, counted among the pending connections until then), the hello, the
/// request, then a stream (or a snapshot and another request), written from a thread of its own
/// — reading the store is blocking work that stays off the event loop — through an
/// ``OutboundWindow``.
final class ConnectionSession: Sendable {
    private enum Phase {
        /// Connected, not authenticated yet: the TLS handshake and the replica's opening.
        case opening
        /// Waiting for request number `turn` (0: the first after the hello).
        case awaitingRequest(turn: Int)
        /// Authenticating, or serving a request that has not started following (yet).
        case busy
        case following(JournalFollower)
        /// The server is stopping: no new request, a following stream ends.
        case stopping
        case closed
    }

    let window: OutboundWindow
    private let server: JournalServer
    private let channel: any Channel
    private let phase = NIOLockedValueBox(Phase.opening)
    private let lastWrite = NIOLockedValueBox<EventLoopFuture<Void>?>(nil)
    /// Whether the greeting (magic and version), which starts any answer, went out.
    private let greeted = NIOLockedValueBox(false)
    /// Whether the replica was refused: a connection is refused (told and logged) once.
    private let refused = NIOLockedValueBox(false)
    /// Requests awaited so far, to tell a time-out's request from a later one.
    private let turns = NIOLockedValueBox(0)
    let peer: String

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

    /// The connection opened: it counts as pending (closing the oldest pending connection when
    /// there are too many) until its opening arrives, within the handshake time-out.
    func accepted() {
        let (refusal, evicted) = server.admitPending(self)
        evicted?.drop()
        if let refusal { refuse(refusal, busy: true); return }
        let timeout = server.configuration.handshakeTimeout
        // Weak: a connection that closed first is not kept for as long as the time-out.
        channel.eventLoop.scheduleTask(in: .of(timeout)) { [weak self] in
            if let self, leave(.opening) { refuse("the replica sent no opening within \(timeout)") }
        }
    }

    /// The replica's opening arrived: its token is checked, it is counted among the replicas, and
    /// greeted with the source's hello — or refused.
    func opened(_ opening: ClientOpening) {
        guard leave(.opening, for: .busy) else { return }
        if let token = server.configuration.token {
            guard !opening.token.isEmpty else { refuse("no token: this server requires one"); return }
            guard token.matches(opening.token) else { refuse("wrong token"); return }
        }
        if let refusal = server.authenticate(self) {
            refuse(refusal, busy: true)
            return
        }
        do {
            let (first, last) = try journalRange()
            write(greetingFirst(Hello(storeID: store.id, firstSequence: first, lastSequence: last).frame))
            if leave(.busy, for: .awaitingRequest(turn: 0)) {
                awaitRequest(turn: 0, within: server.configuration.requestTimeout)
            } else {
                closeAfterWrites()   // stopping
            }
        } catch {
            refuse("the server cannot read its store: \(error)")
        }
    }

    /// The TLS handshake failed (`message` says why), or the connection failed later.
    func tlsFailed(_ message: String) {
        if leave(.opening) { server.log("refused \(peer): \(message)") }
    }

    /// The server has too many pending connections and this is the oldest: it goes.
    private func drop() {
        guard leave(.opening) else { return }
        server.log("dropped \(peer): the oldest of \(server.configuration.maxPendingConnections) connections not authenticated yet, to make room")
        disconnect()
    }

    /// Moves from `expected` to `next` (closed by default).
    /// - Returns: whether the phase was `expected`.
    private func leave(_ expected: Phase, for next: Phase = .closed) -> Bool {
        phase.withLockedValue { phase in
            switch (phase, expected) {
            case (.opening, .opening), (.busy, .busy): phase = next; return true
            default: return false
            }
        }
    }

    /// A frame arrived from the replica.
    /// - Returns: whether its next frames are read (not once it was refused or disconnected: the bytes
    ///   it sent behind get neither a log line nor an answer each).
    @discardableResult
    func received(_ frame: ProtocolFrame) -> Bool {
        enum Turn { case accepted, stopping, outOfTurn, closed }
        let turn = phase.withLockedValue { phase -> Turn in
            switch phase {
            case .awaitingRequest:
                phase = .busy
                return .accepted
            case .stopping: return .stopping
            case .closed: return .closed
            default: return .outOfTurn
            }
        }
        switch turn {
        case .accepted: break
        case .closed:
            return false   // refused or disconnected: it was told, or logged, once
        case .stopping:
            refuse("the server is shutting down", busy: true)
            return false
        case .outOfTurn:
            // A replica sends nothing while it is served: it does not speak this protocol.
            server.log("disconnected \(peer): it sent a frame while being served")
            disconnect()
            return false
        }
        guard frame.type == .request, let request = Request(payload: frame.payload) else {
            refuse("the replica sent a '\(Character(Unicode.Scalar(frame.type.rawValue)))' frame of \(frame.payload.count) bytes where a request (9 bytes) was expected")
            return false
        }
        server.streams.enter()
        Thread { [self] in
            defer { server.streams.leave() }
            serve(request)
        }.start()
        return true
    }

    /// The connection closed (either side); `unopened` says how, when it closed before the
    /// replica's opening.
    func closed(unopened: String) {
        if leave(.opening) { server.log("refused \(peer): \(unopened)") }
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
        // Closed: frames the replica sent behind what is refused are not answered or logged.
        phase.withLockedValue { $0 = .closed }
        let first = refused.withLockedValue { refused in
            defer { refused = true }
            return !refused
        }
        guard first else { return }
        server.log("refused \(peer): \(message)")
        write(greetingFirst(ReplicationProtocol.errorFrame(message, busy: busy)))
        closeAfterWrites()
        // A replica that does not read its refusal (or a TLS handshake never done) does not keep
        // the connection.
        let channel = channel
        channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
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

    /// Refuses the replica if request `turn` has not arrived within `timeout`.
    private func awaitRequest(turn: Int, within timeout: Duration) {
        channel.eventLoop.scheduleTask(in: .of(timeout)) { [weak self] in
            guard let self else { return }
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
            case .opening, .awaitingRequest:
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
                if leave(.busy, for: .awaitingRequest(turn: turn)) {
                    // The replica seeds itself first, which may take long: the idle time-out.
                    awaitRequest(turn: turn, within: server.configuration.idleTimeout)
                } else {
                    closeAfterWrites()   // stopping
                }
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
    /// stream back).
    /// - Throws: ``OutboundWindow/Closed`` once the connection closed.
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

    /// `frame`, after the greeting when it is the first answer.
    private func greetingFirst(_ frame: [UInt8]) -> [UInt8] {
        greeted.withLockedValue { greeted in
            defer { greeted = true }
            return greeted ? frame : ReplicationProtocol.greeting + frame
        }
    }

    /// Closes the connection once what was written went out.
    private func closeAfterWrites() {
        let channel = channel
        guard let last = lastWrite.withLockedValue({ $0 }) else { channel.close(promise: nil); return }
        last.whenComplete { _ in channel.close(promise: nil) }
    }
}
