#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOConcurrencyHelpers

/// A client's blocking TCP connection: the journal stream is applied by a
/// ``KVStore/JournalStreamReader`` reading its descriptor, so the replica reads — and the server
/// sends — only as fast as the replica applies (TCP's own flow control is the back-pressure).
/// Over TLS, the descriptor is one end of a socket pair whose other end ``TLSConnection`` relays.
final class SocketConnection: Sendable {
    /// The server, `tcp://HOST:PORT`, for messages.
    let server: String
    private let handle: NIOLockedValueBox<Int32>
    private let buffered = NIOLockedValueBox<[UInt8]>([])
    /// Why the connection ended, when something else knows better than the socket (TLS).
    private let diagnosis: (@Sendable () -> ReplicationConnectionError?)?

    /// Connects to `host`:`port` (each address it resolves to, in turn).
    /// - Parameters:
    ///   - timeout: how long connecting may take; later, how long a read may wait for a byte
    ///     before the connection counts as lost.
    ///   - receiveBuffer: the socket's receive buffer size, when not the system's (tests make a
    ///     small one to play a slow replica).
    init(host: String, port: Int, timeout: Duration, receiveBuffer: Int32? = nil) throws(ReplicationConnectionError) {
        server = "tcp://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = lookUpStreamAddresses(host, port: String(port), into: &list)
        guard resolved == 0, let first = list else {
            throw ReplicationConnectionError(.unreachable, server: server, "cannot resolve \(host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(list) }
        var failure = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let address = candidate {
            candidate = address.pointee.ai_next
            // Close-on-exec: a process started meanwhile would keep the connection open after it closes here.
            #if os(Linux)
            let type = address.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue)
            #else
            let type = address.pointee.ai_socktype
            #endif
            let descriptor = socket(address.pointee.ai_family, type, address.pointee.ai_protocol)
            guard descriptor >= 0 else { failure = String(cString: strerror(errno)); continue }
            Self.setTimeouts(descriptor, timeout)
            if var size = receiveBuffer { setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
            if connect(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 {
                var one: Int32 = 1
                setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                handle = NIOLockedValueBox(descriptor)
                diagnosis = nil
                return
            }
            failure = String(cString: strerror(errno))
            close(descriptor)
        }
        throw ReplicationConnectionError(.unreachable, server: server, "cannot connect: \(failure)")
    }

    /// A connection over `descriptor`, already connected (it is closed with this); when it ends,
    /// `diagnosis` may say why better than the socket.
    init(connected descriptor: Int32, server: String, timeout: Duration, diagnosis: @escaping @Sendable () -> ReplicationConnectionError?) {
        self.server = server
        self.diagnosis = diagnosis
        Self.setTimeouts(descriptor, timeout)
        handle = NIOLockedValueBox(descriptor)
    }

    /// The descriptor, for a stream reader (-1 once closed).
    var descriptor: Int32 { handle.withLockedValue { $0 } }

    /// Whether the server is on a loopback address.
    var peerIsLoopback: Bool { Loopback.isLoopbackPeer(descriptor) }

    /// Gives the descriptor up (to a channel that takes it over): this no longer closes it.
    func detach() -> Int32 {
        handle.withLockedValue { descriptor in
            defer { descriptor = -1 }
            return descriptor
        }
    }

    /// Sends `bytes`.
    /// - Throws: ``ReplicationConnectionError/Code/connectionLost``.
    func sendAll(_ bytes: [UInt8]) throws(ReplicationConnectionError) {
        var sent = 0
        let descriptor = descriptor
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { raw in send(descriptor, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw lost(n < 0 ? String(cString: strerror(errno)) : "closed") }
            sent += n
        }
    }

    /// Reads one whole frame of at most `limit` bytes.
    /// - Throws: ``ReplicationConnectionError`` (`connectionLost`, `malformed`).
    func readFrame(limit: Int = ReplicationProtocol.maxServerFrame) throws(ReplicationConnectionError) -> ProtocolFrame {
        while true {
            let decoded: (frame: ProtocolFrame, length: Int)?
            do { decoded = try ProtocolFrame.decode(buffered.withLockedValue { $0[...] }, limit: limit) } catch {
                throw ReplicationConnectionError(.malformed, server: server, "the server sent a bad frame: \(error.message)")
            }
            if let (frame, length) = decoded {
                buffered.withLockedValue { $0.removeFirst(length) }
                return frame
            }
            try fill()
        }
    }

    /// Reads exactly `count` bytes.
    func read(_ count: Int) throws(ReplicationConnectionError) -> [UInt8] {
        while buffered.withLockedValue({ $0.count }) < count { try fill() }
        return buffered.withLockedValue { buffer in
            defer { buffer.removeFirst(count) }
            return Array(buffer.prefix(count))
        }
    }

    /// Takes the bytes read but not consumed yet (they come before what the descriptor reads next).
    func takeBuffered() -> [UInt8] {
        buffered.withLockedValue { buffer in
            defer { buffer = [] }
            return buffer
        }
    }

    /// Ends the connection from any thread: a read blocked on it returns (end of stream).
    func shutDown() {
        handle.withLockedValue { descriptor in
            if descriptor >= 0 { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    deinit {
        handle.withLockedValue { descriptor in
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }
    }

    private func fill() throws(ReplicationConnectionError) {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let descriptor = descriptor
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw lost("the server sent nothing for too long") }
            guard n > 0 else { throw lost(n < 0 ? String(cString: strerror(errno)) : "the server closed the connection") }
            buffered.withLockedValue { $0 += chunk[0..<n] }
            return
        }
    }

    private func lost(_ reason: String) -> ReplicationConnectionError {
        diagnosis?() ?? ReplicationConnectionError(.connectionLost, server: server, "connection lost: \(reason)")
    }

    /// Bounds connecting and each read by `timeout` (a silent peer counts as gone).
    private static func setTimeouts(_ descriptor: Int32, _ timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }
}
