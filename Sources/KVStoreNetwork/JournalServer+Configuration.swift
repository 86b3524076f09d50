import KVStore

extension JournalServer {
    /// Where a ``JournalServer`` listens and how much it takes on.
    ///
    /// ```swift
    /// var configuration = JournalServer.Configuration()
    /// configuration.port = 7070
    /// configuration.maxConnections = 4
    /// ```
    public struct Configuration: Sendable {
        /// The address to listen on (default `127.0.0.1`, loopback only: the protocol has no
        /// authentication or encryption; reach a remote server through an ssh tunnel, or listen
        /// on `0.0.0.0` on a network you trust).
        public var host = "127.0.0.1"
        /// The port (default 0: the system picks a free one; ``JournalServer/port`` tells which).
        public var port = 0
        /// The most replicas served at once (default 16); one more is told so and disconnected.
        public var maxConnections = 16
        /// Per connection, the most bytes handed to the network and not yet sent (default 1 MiB)
        /// before the stream waits for the replica to read: a slow replica costs the server at most
        /// this plus one chunk (64 KiB of journal — or one entry, when larger — or 1 MiB of
        /// snapshot).
        public var highWaterMark = 1 << 20
        /// How long a replica may take to send its first request once connected (default 10 s):
        /// one that stays silent is told so and disconnected, so connections that never ask
        /// cannot hold the server's slots. (After a snapshot, the replica seeds itself first: its
        /// next request has no time-out.)
        public var requestTimeout: Duration = .seconds(10)
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

        public init() {}
    }
}
