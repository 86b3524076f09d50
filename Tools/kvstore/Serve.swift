#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import Dispatch
import KVStore
import KVStoreNetwork

/// `kvstore serve PATH --listen HOST:PORT`: serves the store's journal to replicas over TCP.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a store's journal to replicas over TCP ('kvstore replicate tcp://HOST:PORT').",
        discussion: """
            Each replica that connects says how far it has applied this store's journal, and gets \
            the entries after that, then — with 'replicate --follow' — every new commit as it is \
            committed (by any process), never splitting a commit. A replica the journal no longer \
            reaches (truncated past its checkpoint), or a new one started with --snapshot, gets a \
            compacted snapshot of the store first. Several replicas are served at once; one that \
            reads slowly makes only its own stream wait, so it cannot grow the server's memory.

            Prints 'listening on HOST:PORT' on standard output once listening (with port 0, the \
            port the system chose), then one line per replica event on standard error (--quiet: \
            none). Stops on SIGINT or SIGTERM (exit 0): following replicas get the end of their \
            stream and reconnect when a server is back.

            By default the server listens on the loopback address only (a PORT alone means \
            127.0.0.1:PORT), where plain TCP without authentication is allowed. Any other address \
            needs TLS (--tls-cert, --tls-key) and authentication: a token every replica sends \
            (--token-file: a file only its owner may read, such as 'openssl rand -hex 32'), or \
            client certificates (--client-ca); both work on loopback too. A connection has \
            --handshake-timeout seconds to authenticate; until then it is pending, and pending \
            connections do not take the --max-connections slots (the oldest of 32 is closed to \
            make room), so idle or slow connections cannot keep replicas out. A refused \
            connection gets nothing but its refusal, and is logged with the reason.

            Examples:
              kvstore serve ./store --listen 7070
              kvstore serve ./store --listen 0.0.0.0:7070 --token-file token \\
                --tls-cert server.pem --tls-key server.key
              kvstore replicate tcp://origin:7070 ./replica --follow \\
                --ca ca.pem --token-file token
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Option(help: ArgumentHelp("The address to listen on: HOST:PORT, or PORT for the loopback address (0: any free port).", valueName: "host:port"))
    var listen = "127.0.0.1:7070"

    @Option(help: ArgumentHelp("The most replicas served at once.", valueName: "n"))
    var maxConnections = 16

    @OptionGroup(title: "TLS and authentication")
    var security: ServeSecurityOptions

    @Flag(help: "Do not log replica events on standard error.")
    var quiet = false

    func run() throws {
        try reportingErrors {
            let address = try NetworkAddress(listening: listen)
            guard maxConnections > 0 else { throw CommandError("--max-connections must be at least 1") }
            var configuration = JournalServer.Configuration()
            configuration.host = address.host
            configuration.port = address.port
            configuration.maxConnections = maxConnections
            try security.apply(to: &configuration)
            let store = try StoreAccess.openForReading(storePath.path)
            if !quiet {
                configuration.log = { line in FileDescriptorOutput.writeAll(Array("serve: \(line)\n".utf8), to: 2) }
            }
            signal(SIGPIPE, SIG_IGN)
            let server = JournalServer(store: store, configuration: configuration)
            try server.start()
            // Handlers first: a SIGTERM sent as soon as "listening" shows must not be lost.
            let received = DispatchSemaphore(value: 0)
            let stopping = JournalFollowing.stopOnSignals { received.signal() }
            let output = StandardOutput()
            output.line("listening on \(NetworkAddress(host: address.host, port: server.port))")
            try output.finish()
            received.wait()
            stopping.forEach { $0.cancel() }
            server.stop()
        }
    }
}
