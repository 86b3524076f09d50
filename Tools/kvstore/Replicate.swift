import ArgumentParser
import Dispatch
import Foundation
import KVStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `kvstore replicate SOURCE DEST [--follow] [--snapshot]`.
struct ReplicateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replicate",
        abstract: "Replicate a store into a replica, once or following new commits.",
        discussion: """
            Applies SOURCE's journal to the replica DEST, exactly once: each batch of whole \
            source commits goes into DEST in one transaction together with DEST's checkpoint \
            (the last source sequence applied), so a replicate killed at any point and started \
            again neither loses nor repeats a change. DEST is created when nothing is there; it \
            becomes a replica of SOURCE and refuses local writes until 'kvstore promote DEST'. \
            DEST journals each change with its origin, so replicas chain (A → B → C) and DEST's \
            observers fire.

            Without --follow, replicate catches up with what SOURCE holds and prints one summary \
            line. With --follow it keeps applying new commits as they are made (by any process) \
            until SIGINT or SIGTERM, then prints the summary; when standard error is a terminal \
            it shows the lag there (source entries not applied yet) once a second.

            A replica behind SOURCE's truncation point (the entries after its checkpoint are \
            gone) is seeded again from a consistent, compacted snapshot of SOURCE and continues \
            from the snapshot's sequence; so is a new DEST when SOURCE's journal no longer starts \
            at its first entry, or with --snapshot. A seeded replica's own journal starts after \
            the snapshot's sequence. 'kvstore stat DEST' shows the role, the source, the \
            applied sequence, the source's last sequence and the lag.

            SOURCE is a store directory, or tcp://HOST:PORT for a 'kvstore serve' process: over \
            TLS with --tls or --ca (the server's certificate must name HOST), sending a token with \
            --token-file (unencrypted only to a loopback address), with a client certificate \
            with --cert and --key.

            Examples:
              kvstore replicate ./store ./replica
              kvstore replicate ./store ./replica --follow
              kvstore replicate ./store ./new-replica --snapshot
              kvstore replicate ./replica ./replica-of-replica
            """
    )

    @Argument(help: "The store to replicate: a directory, or tcp://HOST:PORT.")
    var source: String

    @Argument(help: "The replica's directory (created when absent).")
    var destination: String

    @Flag(help: "Keep applying new commits until SIGINT or SIGTERM.")
    var follow = false

    @Flag(help: """
        Seed a new replica from a snapshot of the source instead of applying its whole journal \
        (an existing DEST continues from its checkpoint, so the same command can be run again).
        """)
    var snapshot = false

    @OptionGroup(title: "TLS and authentication (tcp:// sources)")
    var security: ReplicateSecurityOptions

    func run() throws {
        try reportingErrors {
            if source.hasPrefix("tcp://") { return try replicateFromServer() }
            if security.isGiven { throw CommandError("--tls, --ca, --cert, --key and --token-file are for a tcp:// source") }
            let store = try StoreAccess.openForReading(source)
            var options = Replicator.Options()
            options.follow = follow
            options.seedsFromSnapshot = snapshot
            let replicator = Replicator(source: store, replicaPath: destination, options: options)
            let status = try replicating(run: replicator.run, stop: replicator.stop)
            let output = StandardOutput()
            output.line(Self.summary(status))
            try output.finish()
        }
    }

    /// Runs a replicator (`run`, ended by `stop`: a ``Replicator``, or a `JournalClient` for a
    /// tcp:// source): following, until a signal, with the lag on a terminal. When it fails
    /// and DEST is a store it created that holds nothing yet, the store and its directories go.
    func replicating(
        run: (((Replicator.Status) -> Void)?) throws -> Replicator.Status, stop: @escaping @Sendable () -> Void
    ) throws -> Replicator.Status {
        let newStore = NewStore(at: destination)
        let latest = LockedValue<Replicator.Status?>(nil)
        let stopping = follow ? JournalFollowing.stopOnSignals(stop) : []
        let lag = follow && isatty(2) == 1 ? Self.reportingLag(of: latest) : nil
        defer {
            stopping.forEach { $0.cancel() }
            lag?.cancel()
            if lag != nil { FileDescriptorOutput.writeAll(Array("\r\u{1B}[K".utf8), to: 2) }
        }
        do {
            return try run { status in latest.withLock { $0 = status } }
        } catch {
            if newStore.isNew && Self.holdsNothing(destination) { newStore.remove() }
            // Batches committed before the failure stay: say how far the replica got.
            if let status = latest.withLock({ $0 }), status.applied > 0 || status.reseeds > 0 {
                throw PartialProgress.error(error, store: destination, through: status.appliedSequence, applied: status.applied, command: "kvstore replicate")
            }
            throw error
        }
    }

    /// Redraws `replicating: applied through A, source at S, lag L` on standard error once a second.
    private static func reportingLag(of latest: LockedValue<Replicator.Status?>) -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1))
        timer.setEventHandler {
            guard let status = latest.withLock({ $0 }) else { return }
            let line = "replicating: applied through \(status.appliedSequence), source at \(status.sourceLastSequence), lag \(Progress.grouped(Int(status.lag)))"
            FileDescriptorOutput.writeAll(Array("\r\u{1B}[K\(line)".utf8), to: 2)
        }
        timer.resume()
        return timer
    }

    /// True when nothing was written to the store at `path`: no store there, or a store without
    /// a journaled change (a seeded replica's journal continues after its snapshot's sequence).
    private static func holdsNothing(_ path: String) -> Bool {
        guard let store = try? StoreAccess.openForReading(path),
              let last = try? store.read({ try $0.lastSequence() }) else { return true }
        return last == 0
    }

    /// `applied 12 entries, skipped 0; source <id> applied through 40 (source at 40, lag 0)[; seeded from a snapshot]`.
    static func summary(_ status: Replicator.Status) -> String {
        let seeded = status.reseeds == 0 ? "" : status.reseeds == 1 ? "; seeded from a snapshot" : "; seeded from a snapshot \(status.reseeds) times"
        return "applied \(status.applied) entries, skipped \(status.skipped); source \(status.source.uuidString.lowercased()) applied through \(status.appliedSequence) (source at \(status.sourceLastSequence), lag \(status.lag))\(seeded)"
    }
}
