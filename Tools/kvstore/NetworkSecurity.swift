import ArgumentParser
import KVStoreNetwork

/// `serve`'s TLS and authentication options.
struct ServeSecurityOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Serve over TLS 1.3 with this certificate (PEM, then any intermediates).", valueName: "path"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The certificate's private key (PEM; mode 0600).", valueName: "path"))
    var tlsKey: String?

    @Option(help: ArgumentHelp("Require replicas to present a certificate signed by this CA (PEM): mutual TLS.", valueName: "path"))
    var clientCa: String?

    @Option(help: ArgumentHelp("Require replicas to send the token in this file (its first line; mode 0600).", valueName: "path"))
    var tokenFile: String?

    @Option(help: ArgumentHelp("Seconds a new connection has to finish its TLS handshake and send its token.", valueName: "seconds"))
    var handshakeTimeout: Double = 5

    /// Sets TLS, the token and the handshake time-out. - Throws: a file that cannot be used, or
    /// options that do not go together.
    func apply(to configuration: inout JournalServer.Configuration) throws {
        guard handshakeTimeout >= 0.001 && handshakeTimeout <= 3600 else {
            throw CommandError("--handshake-timeout must be at least 0.001 and at most 3600 seconds, not \(handshakeTimeout)")
        }
        configuration.handshakeTimeout = .milliseconds(Int64(handshakeTimeout * 1000))
        switch (tlsCert, tlsKey) {
        case (let certificate?, let key?):
            configuration.tls = try JournalServer.TLS(certificateFile: certificate, keyFile: key, clientCAFile: clientCa)
        case (nil, nil):
            if clientCa != nil { throw CommandError("--client-ca needs TLS: give --tls-cert and --tls-key too") }
        default:
            throw CommandError("--tls-cert and --tls-key go together")
        }
        configuration.token = try tokenFile.map { try ReplicationToken(contentsOfFile: $0) }
    }
}

/// `replicate tcp://…`'s TLS and authentication options.
struct ReplicateSecurityOptions: ParsableArguments {
    @Flag(help: "Connect over TLS 1.3, verifying the server's certificate against the system's CAs.")
    var tls = false

    @Option(help: ArgumentHelp("Connect over TLS, verifying the server's certificate against this CA (PEM).", valueName: "path"))
    var ca: String?

    @Option(help: ArgumentHelp("This replica's certificate (PEM), for a server that requires one (--client-ca).", valueName: "path"))
    var cert: String?

    @Option(help: ArgumentHelp("The certificate's private key (PEM; mode 0600).", valueName: "path"))
    var key: String?

    @Option(help: ArgumentHelp("Send the token in this file (its first line; mode 0600).", valueName: "path"))
    var tokenFile: String?

    /// Whether any of the options was given (they apply to tcp:// sources only).
    var isGiven: Bool { tls || ca != nil || cert != nil || key != nil || tokenFile != nil }

    /// Sets TLS and the token. - Throws: a file that cannot be used.
    func apply(to options: inout JournalClient.Options) throws {
        if tls || ca != nil || cert != nil || key != nil {
            options.tls = try JournalClient.TLS(trustRootsFile: ca, certificateFile: cert, keyFile: key)
        }
        options.token = try tokenFile.map { try ReplicationToken(contentsOfFile: $0) }
    }
}
