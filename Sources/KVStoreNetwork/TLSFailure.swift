import Foundation
import NIOCore
import NIOSSL

/// Why a TLS connection failed, in one line: from NIOSSL's errors (BoringSSL's reason codes, the
/// alerts the peer sent) and, when the peer's certificate did not verify, its dates.
enum TLSFailure {
    /// Who the other end is.
    enum Peer: String {
        case server = "the server"
        case replica = "the replica"

        /// This side's name, for the certificate the peer refused.
        var this: String { self == .server ? "this client" : "this server" }
    }

    /// One line saying why the TLS connection with `peer` failed, seen from this side.
    /// - Parameters:
    ///   - certificate: the certificate the peer presented, if any (it dates an expired one).
    ///   - host: the name or address the client connected to (a hostname mismatch names it).
    static func describe(_ error: any Error, peer: Peer, certificate: NIOSSLCertificate?, host: String = "") -> String {
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return "\(peer.rawValue)'s certificate is not for \(host): its names do not include it (hostname mismatch)"
        }
        if let error = error as? NIOSSLError, error == .uncleanShutdown {
            return "\(peer.rawValue) closed the connection without ending TLS"
        }
        let reasons = reasons(of: error)
        func has(_ codes: String...) -> Bool { codes.contains { reasons.contains($0) } }
        if has("WRONG_VERSION_NUMBER", "HTTP_REQUEST", "HTTPS_PROXY_REQUEST", "UNKNOWN_PROTOCOL", "PACKET_LENGTH_TOO_LONG", "RECORD_TOO_LARGE") {
            return peer == .server
                ? "the server does not speak TLS (connect without TLS, or serve with a certificate)"
                : "the replica does not speak TLS (a plain client; this server requires TLS)"
        }
        if has("CERTIFICATE_VERIFY_FAILED") {
            return "\(peer.rawValue)'s certificate is not trusted: \(diagnosis(of: certificate))"
        }
        if has("PEER_DID_NOT_RETURN_A_CERTIFICATE", "TLSV1_ALERT_CERTIFICATE_REQUIRED") {
            return peer == .server
                ? "the server requires a client certificate (mutual TLS): connect with a certificate and key"
                : "the replica presented no client certificate (this server requires one)"
        }
        if has("SSLV3_ALERT_CERTIFICATE_EXPIRED") {
            return "\(peer.rawValue) refused \(peer.this)'s certificate: it expired"
        }
        if has("TLSV1_ALERT_UNKNOWN_CA") {
            return "\(peer.rawValue) does not trust \(peer.this)'s certificate: it is not signed by a CA \(peer.rawValue) trusts"
        }
        if let alert = reasons.first(where: { $0.contains("_ALERT_") }) {
            return "\(peer.rawValue) ended the TLS handshake with the alert \(alert)"
        }
        if reasons.contains("EOF during handshake") {
            return peer == .replica ? replicaLeft("during") : "the server closed the connection during the TLS handshake"
        }
        return "TLS failed: \(reason(of: error))"
    }

    /// A replica that closed the connection during the TLS handshake (`when`: "during"), or just
    /// after it ("after"), without an alert or its opening: one that checked the server's
    /// certificate and found it is not for the name it connected to.
    static func replicaLeft(_ when: String) -> String {
        "the replica closed the connection \(when) the TLS handshake: it may not accept "
            + "this server's certificate for the name it connected to (a hostname mismatch)"
    }

    /// Whether `error` is the connection ending (the peer closed it, or reset it) rather than TLS
    /// refusing it: a following replica reconnects after it.
    static func isConnectionLoss(_ error: any Error) -> Bool {
        if error is IOError || error is ChannelError { return true }
        if let error = error as? NIOSSLError, error == .uncleanShutdown { return true }
        return reasons(of: error) == ["EOF during handshake"]
    }

    /// BoringSSL's reason codes in `error` (`CERTIFICATE_VERIFY_FAILED`), or its description.
    static func reason(of error: any Error) -> String {
        let found = reasons(of: error)
        return found.isEmpty ? "\(error)" : found.joined(separator: ", ")
    }

    private static func reasons(of error: any Error) -> [String] {
        let stack: NIOBoringSSLErrorStack
        switch error as? NIOSSLError {
        case .handshakeFailed(.sslError(let errors)), .handshakeFailed(.unknownError(let errors)),
             .shutdownFailed(.sslError(let errors)):
            stack = errors
        default:
            guard let error = error as? BoringSSLError, case .sslError(let errors) = error else { return [] }
            stack = errors
        }
        // "Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at
        // /path/file.c:123"; a synthetic one: "Error:  EOF during handshake".
        return stack.map { error in
            var text = error.description.dropFirst("Error: ".count)
            if let at = text.range(of: " at ", options: .backwards) { text = text[..<at.lowerBound] }
            if let colon = text.lastIndex(of: ":") { text = text[text.index(after: colon)...] }
            return text.trimmingCharacters(in: .whitespaces)
        }
    }

    /// Why a certificate that failed verification did: its dates, or its signer.
    private static func diagnosis(of certificate: NIOSSLCertificate?) -> String {
        guard let certificate else { return "it could not be verified" }
        let now = time(nil)
        if certificate.notValidAfter < now { return "it expired on \(date(certificate.notValidAfter))" }
        if certificate.notValidBefore > now { return "it is not valid before \(date(certificate.notValidBefore))" }
        return "it is not signed by a trusted CA"
    }

    private static func date(_ time: time_t) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(time)))
    }
}
