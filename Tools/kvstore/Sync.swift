import ArgumentParser
import Foundation
import KVStore
import KVStoreSync

/// `kvstore sync PATH URL [--kinds K1,K2] [--follow] [--batch N]`, `kvstore sync status PATH`
/// (or `kvstore sync PATH --status`).
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync a store with a PostgreSQL hub, or print where its sync stands.",
        usage: """
            kvstore sync PATH URL [--kinds K1,K2] [--follow] [--batch N] [--password-file FILE]
            kvstore sync PATH --hub URL [options]
            kvstore sync status PATH
            """,
        discussion: """
            One pass uploads the store's own changes (in batches, one hub transaction each), then \
            downloads and applies the other stores' changes by per-key last-writer-wins, and \
            prints what it uploaded, downloaded and applied, and the hub's clock offset. The first \
            sync enables sync for --kinds (every kind without it); a kind must have no records \
            yet (load them into a new store that syncs it: kvstore dump OLD | kvstore load NEW). \
            A store is created when nothing is at PATH (a new device's), and removed again when \
            the first pass fails before anything reached it. --follow keeps syncing as the hub announces changes and local commits happen, \
            reconnecting when the hub is lost, until SIGINT or SIGTERM. --status prints the \
            cursors, pending uploads and clock from the store alone (as 'kvstore sync status PATH' does). \
            --batch N sets the journal entries per upload batch and changes per download page \
            (default 5000).

            URL is postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…&schema=…&\
            connect_timeout=…&request_timeout=…]; the password may instead come from \
            --password-file or PGPASSWORD, and is never printed.

            Examples:
              kvstore sync ./store postgres://sync@db.example/app --kinds note,person
              PGPASSWORD=… kvstore sync ./store postgres://sync@db.example/app --follow
              kvstore sync status ./store
            """,
        subcommands: [SyncPassCommand.self, SyncStatusCommand.self],
        defaultSubcommand: SyncPassCommand.self
    )
}

/// One sync pass, or following (`kvstore sync PATH URL …`, the default subcommand of `sync`).
struct SyncPassCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pass",
        abstract: "Sync a store with a PostgreSQL hub (the default: 'kvstore sync PATH URL').",
        shouldDisplay: false
    )


    @OptionGroup var storePath: StorePathArgument<StoreCreatedWhenAbsent>

    @Argument(help: ArgumentHelp("The hub's URL (not needed with --status).", valueName: "url"))
    var url: String?

    @Option(name: .customLong("hub"), help: ArgumentHelp("The hub's URL, instead of the argument.", valueName: "url"))
    var hubURL: String?

    @Option(help: ArgumentHelp("The kinds to sync, comma-separated (default: those already synced, or all).", valueName: "kinds"))
    var kinds: String?

    @Flag(help: "Keep syncing until interrupted.")
    var follow = false

    @Option(help: ArgumentHelp("Journal entries per upload batch and changes per download page.", valueName: "n"))
    var batch = 5000

    @Option(help: ArgumentHelp("A file whose first line is the hub's password (readable by its owner only).", valueName: "file"))
    var passwordFile: String?

    @Flag(help: "Print the store's sync status instead of syncing.")
    var status = false

    func run() throws {
        try reportingErrors {
            if status { return try printStatus() }
            if url != nil, hubURL != nil { throw CommandError("give the hub's URL once: as the argument or as --hub, not both") }
            guard let url = url ?? hubURL else { throw CommandError("sync needs the hub's URL: kvstore sync PATH postgres://USER@HOST/DATABASE") }
            guard batch > 0 else { throw CommandError("--batch must be at least 1, not \(batch)") }
            let hub = try HubConfiguration(url: url, passwordFile: passwordFile)
            let options = SyncEngine.Options(kinds: try kinds.map(Self.kinds), batchSize: batch)
            // A new device's store: made here, and removed again when nothing reached it.
            let newStore = NewStore(at: storePath.path)
            do {
                try sync(SyncEngine(store: try StoreAccess.openCreating(storePath.path), hub: hub, options: options), hub: hub)
            } catch {
                newStore.remove()
                throw error
            }
        }
    }

    private func sync(_ engine: SyncEngine, hub: HubConfiguration) throws {
        if follow {
            try Self.following(engine)
        } else {
            let report = try blocking { try await engine.sync() }
            let output = StandardOutput()
            output.lines(Self.lines(of: report, hub: hub))
            try output.finish()
        }
    }

    private func printStatus() throws {
        try SyncStatusCommand.print(storePath.path)
    }

    /// `a,b` as kind names.
    static func kinds(_ text: String) throws -> Set<String> {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0) }
        return Set(try names.map { try Input.kind($0) })
    }

    static func lines(of report: SyncReport, hub: HubConfiguration) -> [String] {
        var lines = [
            "hub \(hub) (\(report.hub.uuidString.lowercased()))",
            "uploaded \(report.uploaded) change\(report.uploaded == 1 ? "" : "s") (\(report.uploadedNew) new to the hub) in \(report.uploadBatches) batch\(report.uploadBatches == 1 ? "" : "es")",
            "downloaded \(report.downloaded), applied \(report.applied) (the rest already applied or superseded)",
            "clock offset \(report.clockOffsetMilliseconds) ms (hub minus this machine)",
        ]
        if report.clockClamped { lines.append("clock clamped: this machine's clock is over a minute ahead of the hub's; new stamps use the hub's time") }
        if let lost = report.truncatedBeforeUpload {
            lines.append("journal entries \(lost.lowerBound) through \(lost.upperBound) were truncated (forced) before upload: what they changed in kinds that sync never reaches the hub")
        }
        for change in report.aheadOfClock { lines.append("stamped over a minute ahead of the hub's clock (not adopted): \(change)") }
        return lines
    }

    /// Follows until SIGINT or SIGTERM, a line per pass that did something and per lost connection.
    static func following(_ engine: SyncEngine) throws {
        let task = Task {
            try await engine.follow { event in
                if case .synced(let report) = event, report.uploaded + report.downloaded == 0 { return }
                let output = StandardOutput()
                output.line(event.description)
                try? output.finish()
            }
        }
        let sources = JournalFollowing.stopOnSignals { task.cancel() }
        defer { sources.forEach { $0.cancel() } }
        try blocking { try await task.value }
    }
}

/// `kvstore sync status PATH`: the store's sync cursors, pending uploads and clock, read from the
/// store alone (no hub).
struct SyncStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print where a store's sync stands: cursors, pending uploads, clock.",
        discussion: "Reads the store alone: the hub is not contacted. 'kvstore stat PATH' shows the same rows."
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    func run() throws {
        try reportingErrors { try Self.print(storePath.path) }
    }

    static func print(_ path: String) throws {
        let store = try StoreAccess.openForReading(path)
        let output = StandardOutput()
        if let status = try SyncStatus.read(store) {
            let width = status.rows.map(\.label.count).max() ?? 0
            output.lines(status.rows.map { $0.label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.text })
        } else {
            output.line("sync  not enabled (kvstore sync PATH URL enables it)")
        }
        try output.finish()
    }
}

/// Runs `body` on the concurrency pool and waits for it on this thread.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let result = LockedValue<Result<T, any Error>?>(nil)
    Task {
        let outcome: Result<T, any Error>
        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0 }!.get()
}
