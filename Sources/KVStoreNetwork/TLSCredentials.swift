import NIOSSL

extension JournalServer {
    /// TLS for a ``JournalServer`` (1.3 only): its certificate and key; with a client CA, mutual
    /// TLS — a replica must present a certificate that CA signed.
    ///
    /// ```swift
    /// configuration.tls = try JournalServer.TLS(certificateFile: "server.pem", keyFile: "server.key")
    /// ```
    public struct TLS: Sendable {
        let context: NIOSSLContext
        /// Whether replicas must present a certificate signed by the client CA.
        public let requiresClientCertificate: Bool

        /// Loads the PEM files: `certificateFile` (the server's certificate, then any
        /// intermediates), `keyFile` (its private key, which only its owner may read), and
        /// `clientCAFile` (the CA replicas' certificates must be signed by), if any.
        /// - Throws: ``CredentialError`` naming the file that cannot be read or used.
        public init(certificateFile: String, keyFile: String, clientCAFile: String? = nil) throws(CredentialError) {
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: try PEM.certificates(certificateFile, kind: "certificate file").map { .certificate($0) },
                privateKey: .privateKey(try PEM.privateKey(keyFile)))
            if let clientCAFile {
                configuration.certificateVerification = .noHostnameVerification
                configuration.trustRoots = .certificates(try PEM.certificates(clientCAFile, kind: "client CA file"))
            }
            context = try PEM.context(configuration, certificateFile: certificateFile, keyFile: keyFile)
            requiresClientCertificate = clientCAFile != nil
        }
    }
}

extension JournalClient {
    /// TLS for a ``JournalClient`` (1.3 only): the roots it trusts to verify the server's
    /// certificate — whose names must include the host connected to — and, for a server that
    /// asks for one (mutual TLS), the client's own certificate and key.
    ///
    /// ```swift
    /// options.tls = try JournalClient.TLS(trustRootsFile: "ca.pem")
    /// ```
    public struct TLS: Sendable {
        let context: NIOSSLContext

        /// Loads the PEM files: `trustRootsFile` (the CA certificates that may sign the server's;
        /// nil: the system's), and `certificateFile` and `keyFile` (this client's certificate and
        /// its private key, which only its owner may read), both or neither.
        /// - Throws: ``CredentialError`` naming the file that cannot be read or used.
        public init(trustRootsFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) throws(CredentialError) {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let trustRootsFile {
                configuration.trustRoots = .certificates(try PEM.certificates(trustRootsFile, kind: "CA file"))
            }
            switch (certificateFile, keyFile) {
            case (nil, nil): break
            case (let certificateFile?, let keyFile?):
                configuration.certificateChain = try PEM.certificates(certificateFile, kind: "certificate file").map { .certificate($0) }
                configuration.privateKey = .privateKey(try PEM.privateKey(keyFile))
            case (let certificateFile?, nil):
                throw CredentialError(certificateFile, "the client certificate \(certificateFile) needs its private key too")
            case (nil, let keyFile?):
                throw CredentialError(keyFile, "the private key \(keyFile) needs its client certificate too")
            }
            context = try PEM.context(configuration, certificateFile: certificateFile ?? "", keyFile: keyFile ?? "")
        }
    }
}

/// Loading PEM files into NIOSSL's types, with one-line errors naming the file.
private enum PEM {
    static func certificates(_ path: String, kind: String) throws(CredentialError) -> [NIOSSLCertificate] {
        let bytes = try CredentialFile.read(path, kind: kind)
        guard let certificates = try? NIOSSLCertificate.fromPEMBytes(bytes), !certificates.isEmpty else {
            throw CredentialError(path, "\(kind) \(path) holds no PEM certificate")
        }
        return certificates
    }

    static func privateKey(_ path: String) throws(CredentialError) -> NIOSSLPrivateKey {
        let bytes = try CredentialFile.readSecret(path, kind: "key file")
        guard let key = try? NIOSSLPrivateKey(bytes: bytes, format: .pem) else {
            throw CredentialError(path, "key file \(path) holds no PEM private key (or an encrypted one)")
        }
        return key
    }

    static func context(_ configuration: TLSConfiguration, certificateFile: String, keyFile: String) throws(CredentialError) -> NIOSSLContext {
        var configuration = configuration
        configuration.minimumTLSVersion = .tlsv13
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            guard !keyFile.isEmpty else { throw CredentialError("", "cannot set up TLS: \(TLSFailure.reason(of: error))") }
            throw CredentialError(keyFile, "the key in \(keyFile) does not go with the certificate in \(certificateFile): \(TLSFailure.reason(of: error))")
        }
    }
}
