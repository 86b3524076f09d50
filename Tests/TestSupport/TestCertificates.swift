import Foundation

/// Certificates for TLS tests, made with the `openssl` command in a directory of the test's own
/// (EC P-256 keys, mode 0600): a CA, and certificates it signs for a server on 127.0.0.1 and
/// localhost, for a client, for a server whose names are elsewhere, and expired ones (valid until
/// yesterday); a foreign CA and a server and client certificate it signs.
///
/// ```swift
/// let certificates = try TestCertificates(in: directory)
/// configuration.tls = try JournalServer.TLS(certificateFile: certificates.server.certificate,
///                                           keyFile: certificates.server.key)
/// ```
public struct TestCertificates: Sendable {
    /// A certificate file and its key file.
    public struct Identity: Sendable {
        public let certificate: String
        public let key: String
    }

    /// The CA the tests trust.
    public let ca: Identity
    /// Another CA, trusted by nobody.
    public let foreignCA: Identity
    /// For IP 127.0.0.1 and DNS localhost, signed by ``ca``.
    public let server: Identity
    /// A client's, signed by ``ca``.
    public let client: Identity
    /// As ``server``, expired yesterday.
    public let expiredServer: Identity
    /// As ``client``, expired yesterday.
    public let expiredClient: Identity
    /// As ``server``, signed by ``foreignCA``.
    public let foreignServer: Identity
    /// As ``client``, signed by ``foreignCA``.
    public let foreignClient: Identity
    /// For DNS elsewhere.example only, signed by ``ca``: a hostname mismatch on 127.0.0.1.
    public let otherHost: Identity

    /// The `openssl` command.
    public static let openssl = "/usr/bin/openssl"

    /// Makes them all in `directory` (which exists).
    /// - Throws: when `openssl` is missing or fails (naming the command and what it said).
    public init(in directory: String) throws {
        let make = Maker(directory: directory)
        ca = try make.authority("ca")
        foreignCA = try make.authority("foreign-ca")
        let serverNames = "IP:127.0.0.1,DNS:localhost"
        server = try make.leaf("server", signedBy: ca, names: serverNames, days: 30)
        client = try make.leaf("client", signedBy: ca, names: "DNS:replica", days: 30)
        expiredServer = try make.leaf("expired-server", signedBy: ca, names: serverNames, days: -1)
        expiredClient = try make.leaf("expired-client", signedBy: ca, names: "DNS:replica", days: -1)
        foreignServer = try make.leaf("foreign-server", signedBy: foreignCA, names: serverNames, days: 30)
        foreignClient = try make.leaf("foreign-client", signedBy: foreignCA, names: "DNS:replica", days: 30)
        otherHost = try make.leaf("other-host", signedBy: ca, names: "DNS:elsewhere.example", days: 30)
    }

    private struct Maker {
        let directory: String
        private let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

        func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

        func authority(_ name: String) throws -> Identity {
            let identity = Identity(certificate: path("\(name).pem"), key: path("\(name).key"))
            try run(["req", "-x509"] + newKey + ["-keyout", identity.key, "-out", identity.certificate, "-days", "30", "-subj", "/CN=\(name)"])
            return identity
        }

        /// `days` -1: valid from now until yesterday, that is expired.
        func leaf(_ name: String, signedBy issuer: Identity, names: String, days: Int) throws -> Identity {
            let identity = Identity(certificate: path("\(name).pem"), key: path("\(name).key"))
            let request = path("\(name).csr")
            try run(["req"] + newKey + ["-keyout", identity.key, "-out", request, "-subj", "/CN=\(name)", "-addext", "subjectAltName=\(names)"])
            try run(["x509", "-req", "-in", request, "-CA", issuer.certificate, "-CAkey", issuer.key, "-CAcreateserial",
                     "-days", "\(days)", "-copy_extensions", "copy", "-out", identity.certificate])
            return identity
        }

        private func run(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: TestCertificates.openssl)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            let errors = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments.joined(separator: " ")): \(said)"])
            }
        }
    }
}

/// Writes `text` to the file at `path` with permissions `mode` (a token file). - Returns: `path`.
@discardableResult
public func writeSecret(_ text: String, to path: String, mode: Int = 0o600) throws -> String {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    return path
}
