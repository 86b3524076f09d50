/// A journal server that cannot be reached, does not speak the protocol, or refused: one line
/// naming the server and the problem.
///
/// ```swift
/// do { try client.run() } catch let error as ReplicationConnectionError {
///     print(error)             // tcp://127.0.0.1:7070: cannot connect: Connection refused
///     if error.isTransient { /* try again later */ }
/// }
/// ```
public struct ReplicationConnectionError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for callers that switch on it.
    public enum Code: String, Sendable {
        /// No connection could be made (nothing listens there, the host is unknown, a time-out).
        case unreachable
        /// The connection was lost (closed, reset, silent for longer than the receive time-out).
        case connectionLost
        /// The peer does not speak the replication protocol, or sent a malformed or corrupt frame.
        case malformed
        /// The server speaks another protocol version than this build.
        case newerProtocol
        /// The server refused the request, saying why (in the message).
        case refused
        /// The server cannot take the replica now (too many connections, shutting down): try later.
        case busy
        /// The TLS handshake failed: a certificate not trusted (expired, signed by another CA, for
        /// another host), one missing, or one side that does not speak TLS.
        case tlsFailed
        /// The client will not send its token unencrypted to an address that is not loopback.
        case insecure
    }

    /// What went wrong.
    public let code: Code
    /// The server, `tcp://HOST:PORT`.
    public let server: String
    /// The problem.
    public let message: String

    /// An error with `code` and `message` about the server `server` (`tcp://HOST:PORT`).
    public init(_ code: Code, server: String, _ message: String) {
        self.code = code
        self.server = server
        self.message = message
    }

    /// The server and the message.
    public var description: String { "\(server): \(message)" }

    /// Whether trying again later may work (a following replica reconnects).
    public var isTransient: Bool { code == .unreachable || code == .connectionLost || code == .busy }
}
