import KVStore

extension JournalServer {
    /// Where a ``JournalServer`` listens and how much it takes on.
    ///
    /// ```swift
    /// var configuration = JournalServer.Configuration()
    /// configuration.host = "0.0.0.0"
    /// configuration.port = 7070
    /// configuration.tls = try JournalServer.TLS(certificateFile: "server.pem", keyFile: "server.key")
    /// configuration.token = try ReplicationToken(contentsOfFile: "token")
    /// ```
    public struct Configuration: Sendable {
        /// The address to listen on (default `127.0.0.1`). On an address that is not loopback
        /// the server needs ``tls`` and authentication (``token``, or a ``JournalServer/TLS``
        /// with a client CA), or it refuses to start.
        public var host = "127.0.0.1"
        /// The port (default 0: the system picks a free one; ``JournalServer/port`` tells which).
        public var port = 0
        /// TLS 1.3 with this certificate (and, with a client CA, replicas' certificates checked);
        /// nil (the default): plain TCP, which only a loopback address allows.
        public var tls: JournalServer.TLS?
        /// The token replicas must send (compared in constant time); nil (the default): none.
        public var token: ReplicationToken?
        /// The most replicas served at once (default 16); one more is told so and disconnected.
        /// Only authenticated connections count here.
        public var maxConnections = 16
        /// The most connections not authenticated yet (default 32): one more closes the oldest of
        /// them to make room, so a flood of idle or slow connections cannot keep replicas out.
        public var maxPendingConnections = 32
        /// How long a new connection may take — from when it connected, however it trickles its
        /// bytes — to finish its TLS handshake and send its opening with its token (default 5 s).
        public var handshakeTimeout: Duration = .seconds(5)
        /// Per connection, the most bytes handed to the network and not yet sent (default 1 MiB)
        /// before the stream waits for the replica to read: a slow replica costs the server at most
        /// this plus one chunk (64 KiB of journal — or one entry, when larger — or 1 MiB of
        /// snapshot).
        public var highWaterMark = 1 << 20
        /// How long a replica may take to send its first request once greeted (default 10 s):
        /// one that stays silent is told so and disconnected, so connections that never ask
        /// cannot hold the server's slots.
        public var requestTimeout: Duration = .seconds(10)
        /// How long a replica may take to send its next request after a snapshot, which it seeds
        /// itself from first (default 10 minutes); a following replica that takes longer
        /// reconnects and continues from the seeded replica.
        public var idleTimeout: Duration = .seconds(600)
        /// How long a stream waits for its replica to read (its window full) before the replica
        /// counts as gone and is disconnected (default 60 s): one that stops reading cannot hold
        /// a slot and a thread forever. When it reads again it finds the connection closed, and a
        /// following replica reconnects and resumes after its checkpoint.
        public var stallTimeout: Duration = .seconds(60)
        /// How often a following replica is told the source's last sequence (default 1 s). Keep
        /// it well below the replicas' ``JournalClient/Options/timeout`` (10 s by default): a
        /// replica that hears nothing for that long counts the connection as lost and reconnects.
        public var positionInterval: Duration = .seconds(1)
        /// How the server follows the journal for following replicas.
        public var follow = JournalFollowOptions()
        /// Receives one line per connection event (a replica connected, was refused, left), for a
        /// log; nil (the default) for none.
        public var log: (@Sendable (String) -> Void)?

        /// Each connection's socket send buffer, when not the system's (tests make a small one,
        /// so that a replica that does not read fills it soon).
        package var socketSendBuffer: Int32?

        /// The defaults: `127.0.0.1`, a free port, plain TCP, no token, 16 replicas.
        public init() {}

        /// What listening on ``host`` lacks: TLS, or authentication, when it is not a loopback
        /// address; nil when nothing.
        var missingProtection: String? {
            guard !Loopback.isLoopback(host: host) else { return nil }
            let authenticated = token != nil || tls?.requiresClientCertificate == true
            switch (tls != nil, authenticated) {
            case (true, true): return nil
            case (true, false): return "authentication: a token (--token-file) or client certificates (--client-ca)"
            case (false, true): return "TLS: a certificate and its key (--tls-cert, --tls-key)"
            case (false, false): return "TLS and authentication: a certificate and its key (--tls-cert, --tls-key), and a token (--token-file) or client certificates (--client-ca)"
            }
        }
    }
}
