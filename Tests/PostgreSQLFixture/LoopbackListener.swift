import Foundation

/// A TCP socket listening on 127.0.0.1 at a port the system picked, that never accepts: clients
/// connect (the kernel completes the handshake) and then wait for an answer that never comes.
/// Closed when the value goes away, which also makes its ``port`` a free one to hand to a server.
///
/// ```swift
/// let silent = try LoopbackListener()
/// // connect to 127.0.0.1:\(silent.port): the connection opens, nothing ever answers
/// ```
public final class LoopbackListener: Sendable {
    /// The port it listens on.
    public let port: Int
    private let descriptor: Int32

    /// Binds and listens.
    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, ready else {
            let problem = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            throw FixtureError("cannot listen on 127.0.0.1: \(problem)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
