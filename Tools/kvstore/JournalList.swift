import ArgumentParser
import KVStore

/// `kvstore journal list PATH [--since SEQ] [--limit N] [--format jsonl|table]`.
struct JournalListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print journal entries, oldest first.",
        discussion: """
            jsonl (the default) writes each entry as one compact typed JSON object per line, with \
            the fields sequence, commit, timestamp, ref, change, and when present keyPath, old, \
            new, indexes, origin and derived. table writes aligned columns SEQ, COMMIT, TIME, \
            REF, KEYPATH, CHANGE, OLD, NEW; values longer than \(JournalListing.valueCellLimit) \
            characters are shortened there.

            Examples:
              kvstore journal list ./store
              kvstore journal list ./store --since 42
              kvstore journal list ./store --since 42 --limit 10 --format table
            """
    )

    @Argument(help: "The store's directory.")
    var path: String

    @Option(help: ArgumentHelp("Start at this sequence number (included).", valueName: "seq"))
    var since: UInt64 = 1

    @Option(help: ArgumentHelp("Print at most this many entries.", valueName: "n"))
    var limit: Int?

    @Option(help: "The output format.")
    var format: JournalFormat = .jsonl

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit)") }
    }

    func run() throws {
        try reportingErrors {
            let store = try StoreAccess.openForReading(path)
            let output = StandardOutput()
            try JournalListing.write(store, since: since, limit: limit, format: format, to: output)
            output.flush()
        }
    }
}
