import ArgumentParser
import Foundation
import KVStore

/// `kvstore journal apply PATH [FILE|-]`: applies another store's exported journal.
struct JournalApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Apply a journal stream from 'kvstore journal export' to a store (a replica).",
        discussion: """
            Reads the stream from FILE, or standard input when FILE is '-' or absent, and checks \
            all of it (every frame's checksum, the order of sequences, every entry) before \
            applying anything: a corrupt, truncated or gapped stream changes nothing. Creates \
            the store when nothing is at PATH (or PATH is an empty directory).

            Applying is exactly-once: each source commit is applied under its own commit id, and \
            the store remembers the last source sequence applied (meta 'replica/<source id>') in \
            the same transaction, so entries already applied are skipped (applying twice changes \
            nothing) and a stream that starts after a missing entry is refused. Entries are \
            journaled here with their origin (the store where the change was first made), so \
            replicas chain; changes that originated in PATH itself are skipped. Commits are \
            applied in transactions of about 10,000 entries; if PATH turns out to diverge from \
            the source, the apply stops at that commit and what was applied before stays, with \
            its checkpoint. Prints one summary line.

            An open-ended stream ('journal export --follow') read from a pipe cannot be checked \
            through first, as it ends only when the export stops: its commits are applied as \
            they arrive, each checked whole before it is applied, until the stream's end frame \
            (the export was interrupted). A stream error then stops the apply with the commits \
            before it applied; start again with 'export --since' the next sequence ('kvstore \
            stat' shows the last applied).

            Examples:
              kvstore journal export ./store > store.journal && kvstore journal apply ./replica store.journal
              ssh origin kvstore journal export ./store --since 1201 | kvstore journal apply ./replica
              kvstore journal export ./store --follow | kvstore journal apply ./replica
            """
    )

    @OptionGroup var storePath: StorePathArgument<Destination>
    enum Destination: StorePathHelp { static let text = "The store to apply to (created when absent)." }

    @Argument(help: ArgumentHelp("The stream: a file, or '-' (the default) for standard input.", valueName: "file"))
    var file: String?

    func run() throws {
        try reportingErrors {
            let input = try StreamInput(file)
            if let start = input.openEndedStart {
                let reader = try JournalStreamReader(start: start, fileDescriptor: input.descriptor)
                try refuseGapInANewStore(reader.header)
                let summary = try applying(from: reader.header.storeID) { store in try store.applyJournal(reader) }
                try printSummary(summary, of: reader.header)
                return
            }
            let check = try JournalStreamReader(fileDescriptor: input.descriptor)
            try check.readThrough()
            let header = check.header
            try refuseGapInANewStore(header)
            try input.rewind()
            let reader = try JournalStreamReader(fileDescriptor: input.descriptor)
            let progress = Progress(label: "applying", unit: "entries", total: Int(check.count))
            let summary: Store.JournalApplySummary
            do {
                summary = try applying(from: header.storeID) { store in
                    try store.checkApplicable(header)
                    return try store.applyJournal(reader) { progress.advance(by: $0) }
                }
            } catch {
                progress.clear()
                throw error
            }
            progress.finish()
            try printSummary(summary, of: header)
        }
    }

    /// Opens (or creates) the store and runs `apply` on it. When it fails and the store is one
    /// this command created, with nothing applied, the store and the directories made for it go;
    /// when batches were committed before the failure, the error says how far the store got.
    private func applying(from source: UUID, _ apply: (Store) throws -> Store.JournalApplySummary) throws -> Store.JournalApplySummary {
        let newStore = NewStore(at: storePath.path)
        var store: Store? = try StoreAccess.openCreating(storePath.path)
        let before = try store!.read { try $0.replicationCheckpoint(for: source) }
        do {
            return try apply(store!)
        } catch {
            let appliedNothing = (try? store?.read { try $0.lastSequence() }) == 0
            let after = (try? store?.read { try $0.replicationCheckpoint(for: source) }) ?? before
            store = nil   // closes the store before its files go
            if appliedNothing { newStore.remove() }
            if after > before {
                throw PartialProgress.error(error, store: storePath.path, through: after, applied: nil, command: "kvstore journal apply")
            }
            throw error
        }
    }

    /// A stream that does not start at the source's first entry cannot make a new replica.
    private func refuseGapInANewStore(_ header: JournalStreamHeader) throws {
        if StoreDirectory.isEmpty(atPath: storePath.path), header.firstSequence > 1 {
            throw JournalApplyError(.gap, "source \(entries(1, through: header.firstSequence - 1)) \(are(1, through: header.firstSequence - 1)) missing: \(storePath.path) is a new store, but the stream starts at \(header.firstSequence)")
        }
    }

    private func printSummary(_ summary: Store.JournalApplySummary, of header: JournalStreamHeader) throws {
        let output = StandardOutput()
        output.line("applied \(summary.applied) entries, skipped \(summary.skipped); source \(header.storeID.uuidString.lowercased()) applied through \(summary.checkpoint)")
        try output.finish()
    }
}
