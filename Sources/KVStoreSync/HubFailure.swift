#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOSSL
import PostgresNIO

/// Turns what postgres-nio and SwiftNIO throw into one line of ``SyncError``. postgres-nio's own
/// descriptions are deliberately vague (they may hold query parameters); these name the hub, the
/// server's message and SQLSTATE, and never a password.
enum HubFailure {
    /// The connect deadline passed.
    struct TimedOut: Error {}
    static let timedOut = TimedOut()

    /// - Parameter timeout: the connect time-out while connecting, nil for a request.
    static func map(_ error: any Error, hub: String, host: String, port: Int, timeout: Duration? = nil) -> SyncError {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let lost: SyncError.Code = timeout == nil ? .connectionLost : .unreachable
        func failure(_ code: SyncError.Code, _ message: String) -> SyncError { SyncError(code, hub: hub, message) }
        switch error {
        case let error as SyncError:
            return error
        case is TimedOut:
            return failure(.unreachable, "cannot reach the hub at \(address): no answer within \(timeout?.components.seconds ?? 0) s")
        case let error as PSQLError where error.code == .connectionError && error.underlying.map(isConnectTimeout) == true:
            return map(TimedOut(), hub: hub, host: host, port: port, timeout: timeout)
        case let error as PostgresTransactionError:
            let inner = error.closureError ?? error.commitError ?? error.beginError ?? error.rollbackError
            return inner.map { map($0, hub: hub, host: host, port: port, timeout: timeout) } ?? failure(.refused, "the transaction failed")
        case is CancellationError:
            return failure(lost, "the request to the hub was cancelled")
        case let error as PSQLError:
            switch error.code {
            case .server:
                return server(error, failure)
            case .connectionError:
                let reason = error.underlying.map(describe) ?? "connection failed"
                if error.underlying.map(isTLS) == true { return failure(.tlsFailed, "TLS with the hub at \(address) failed: \(reason)") }
                return failure(.unreachable, "cannot reach the hub at \(address): \(reason)")
            case .sslUnsupported:
                return failure(.tlsFailed, "the hub at \(address) does not offer TLS, which the URL's sslmode requires")
            case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
                return failure(.tlsFailed, "TLS with the hub at \(address) failed")
            case .authMechanismRequiresPassword:
                return failure(.authenticationFailed, "the hub asks for a password and none was given (URL, password file or PGPASSWORD)")
            case .unsupportedAuthMechanism, .saslError:
                return failure(.authenticationFailed, "the hub asks for an authentication method this build does not support")
            case .queryCancelled:
                return failure(lost, "the request to the hub was cancelled")
            default:
                if let underlying = error.underlying, isTLS(underlying) {
                    return failure(.tlsFailed, "TLS with the hub at \(address) failed: \(describe(underlying))")
                }
                return failure(lost, timeout == nil ? "the connection to the hub was lost" : "the hub at \(address) closed the connection")
            }
        default:
            if isTLS(error) { return failure(.tlsFailed, "TLS with the hub at \(address) failed: \(describe(error))") }
            return failure(lost, "the connection to the hub failed: \(describe(error))")
        }
    }

    /// An error the server sent, with its SQLSTATE.
    private static func server(_ error: PSQLError, _ failure: (SyncError.Code, String) -> SyncError) -> SyncError {
        let state = error.serverInfo?[.sqlState] ?? "?????"
        let message = (error.serverInfo?[.message] ?? "the server refused").replacingOccurrences(of: "\n", with: " ")
        if state.hasPrefix("28") {  // invalid authorization: password, pg_hba.conf
            return failure(.authenticationFailed, "the hub refused the login: \(message)")
        }
        if state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state) {  // connection, shutdown, starting up
            return failure(.connectionLost, "\(message) (SQLSTATE \(state))")
        }
        return failure(.refused, "\(message) (SQLSTATE \(state))")
    }

    private static func isTLS(_ error: any Error) -> Bool { error is NIOSSLError || error is BoringSSLError }

    private static func isConnectTimeout(_ error: any Error) -> Bool {
        if case ChannelError.connectTimeout = error { return true }
        return false
    }

    /// A short reason: the system's text for an errno, NIO's for the rest.
    private static func describe(_ error: any Error) -> String {
        switch error {
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)).lowercased()
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first { return describe(first.error) }
            if let dns = error.dnsAAAAError ?? error.dnsAError { return "cannot resolve the host name (\(dns))" }
            return "no address to connect to"
        case let error as NIOSSLError:
            if case .handshakeFailed(let reason) = error { return "handshake failed: \(reason)" }
            return "\(error)"
        default:
            return "\(error)"
        }
    }
}
