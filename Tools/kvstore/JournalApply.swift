import ArgumentParser
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

            Examples:
              kvstore journal export ./store > store.journal && kvstore journal apply ./replica store.journal
              ssh origin kvstore journal export ./store --since 1201 | kvstore journal apply ./replica
            """
    )

    @Argument(help: "The store to apply to (created when absent).")
    var path: String

    @Argument(help: ArgumentHelp("The stream: a file, or '-' (the default) for standard input.", valueName: "file"))
    var file: String?

    func run() throws {
        try reportingErrors {
            let input = try StreamInput(file)
            let check = try JournalStreamReader(fileDescriptor: input.descriptor)
            while try check.nextCommit() != nil {}
            let header = check.header
            if StoreAccess.isAbsentOrEmptyDirectory(path), header.firstSequence > 1 {
                throw JournalApplyError(.gap, "source entries 1…\(header.firstSequence - 1) are missing: \(path) is a new store, but the stream starts at \(header.firstSequence)")
            }
            let store = try StoreAccess.openCreating(path)
            try store.checkApplicable(header)
            try input.rewind()
            let reader = try JournalStreamReader(fileDescriptor: input.descriptor)
            let progress = Progress(label: "applying", unit: "entries", total: Int(check.count))
            let summary: Store.JournalApplySummary
            do {
                summary = try store.applyJournal(reader) { progress.advance(by: $0) }
            } catch {
                progress.clear()
                throw error
            }
            progress.finish()
            let output = StandardOutput()
            output.line("applied \(summary.applied) entries, skipped \(summary.skipped); source \(header.storeID.uuidString.lowercased()) applied through \(summary.checkpoint)")
            try output.finish()
        }
    }
}
