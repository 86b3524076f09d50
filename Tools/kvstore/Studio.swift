import ArgumentParser
import Dispatch
import Foundation
import KVStore
import KVStoreStudio

/// `kvstore studio PATH [--listen HOST:PORT] [--read-only] [--no-browser]`: the browser inspector.
struct StudioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "studio",
        abstract: "Inspect and edit a store live in the browser, back through its journal.",
        discussion: """
            Serves a web app (compiled into kvstore: no network needed) over the store: kinds and \
            their records, paged and sorted, queried with 'kvstore query' predicates; records with \
            their references and the records referencing them (through indexes); rows that change \
            as any process commits; the journal, time travel to any sequence it holds, revert; \
            edits through the same write path as 'kvstore set' and 'rm'; the store's health.

            Prints 'studio: URL' on standard output once listening (with port 0, the port the \
            system chose). The URL carries a one-time token, exchanged for a cookie on first \
            load: requests without it are refused. Opens it in $BROWSER, or with xdg-open, when \
            either exists (--no-browser: never). Listens on the loopback address by default (a \
            PORT alone means 127.0.0.1:PORT). Stops on SIGINT or SIGTERM (exit 0).

            Examples:
              kvstore studio ./store
              kvstore studio ./store --listen 8080 --read-only
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Option(help: ArgumentHelp("The address to listen on: HOST:PORT, or PORT for the loopback address (0: any free port).", valueName: "host:port"))
    var listen = "127.0.0.1:0"

    @Flag(help: "Refuse every edit: browse, follow and travel only (the store is opened read-only).")
    var readOnly = false

    @Flag(help: "Do not open a browser; only print the URL.")
    var noBrowser = false

    func run() throws {
        try reportingErrors {
            let address = try NetworkAddress(listening: listen)
            let store = try readOnly ? StoreAccess.openForReading(storePath.path) : StoreAccess.openExisting(storePath.path)
            var configuration = StudioServer.Configuration()
            configuration.host = address.host
            configuration.port = address.port
            configuration.readOnly = readOnly
            let studio = StudioServer(store: store, configuration: configuration)
            let received = DispatchSemaphore(value: 0)
            let stopping = JournalFollowing.stopOnSignals { received.signal() }
            defer { stopping.forEach { $0.cancel() } }
            try Self.waiting { try await studio.start() }
            let output = StandardOutput()
            output.line("studio: \(studio.url)")
            try output.finish()
            if !noBrowser { Self.openBrowser(studio.url) }
            received.wait()
            try Self.waiting { await studio.stop() }
        }
    }

    /// Runs `body` on the concurrency pool and waits for it here.
    private static func waiting(_ body: @escaping @Sendable () async throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = LockedValue<(any Error)?>(nil)
        Task {
            do { try await body() } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Opens `url` with $BROWSER or xdg-open when either exists; a failure to open is not an error.
    private static func openBrowser(_ url: String) {
        let environment = ProcessInfo.processInfo.environment
        let candidates = [environment["BROWSER"], "/usr/bin/xdg-open", "/usr/local/bin/xdg-open"].compactMap { $0 }
        guard let browser = candidates.first(where: { !$0.isEmpty && ($0.contains("/") ? FileManager.default.isExecutableFile(atPath: $0) : true) })
        else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [browser, url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }
}
