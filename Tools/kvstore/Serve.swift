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

            The protocol has no authentication or encryption: by default the server listens on \
            the loopback address only (a PORT alone means 127.0.0.1:PORT). To replicate across \
            machines, use an ssh tunnel, or listen on another address on a network you trust.

            Examples:
              kvstore serve ./store --listen 7070
              kvstore serve ./store --listen 0.0.0.0:7070 --max-connections 4
              ssh -L 7070:localhost:7070 origin kvstore serve ./store --listen 7070
            """
    )

    @Argument(help: "The store's directory.")
    var path: String

    @Option(help: ArgumentHelp("The address to listen on: HOST:PORT, or PORT for the loopback address (0: any free port).", valueName: "host:port"))
    var listen = "127.0.0.1:7070"

    @Option(help: ArgumentHelp("The most replicas served at once.", valueName: "n"))
    var maxConnections = 16

    @Flag(help: "Do not log replica events on standard error.")
    var quiet = false

    func run() throws {
        try reportingErrors {
            let address = try NetworkAddress(listening: listen)
            guard maxConnections > 0 else { throw CommandError("--max-connections must be at least 1") }
            let store = try StoreAccess.openForReading(path)
            var configuration = JournalServer.Configuration()
            configuration.host = address.host
            configuration.port = address.port
            configuration.maxConnections = maxConnections
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
