import ArgumentParser
import KVStore

/// `kvstore journal list PATH [--since SEQ | --consumer NAME] [--limit N] [--follow] [--format jsonl|table]`.
struct JournalListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print journal entries, oldest first.",
        discussion: """
            jsonl (the default) writes each entry as one compact typed JSON object per line, with \
            the fields sequence, commit, timestamp, ref, change, and when present keyPath, old, \
            new, indexes, origin, stamp (the hybrid logical clock time as text, \
            "<wall milliseconds>.<counter>") and derived. table writes aligned columns SEQ, COMMIT, TIME, \
            REF, KEYPATH, CHANGE, OLD, NEW; values longer than \(JournalListing.valueCellLimit) \
            characters are shortened there.

            --follow keeps printing entries as they commit (from this or any other process), \
            flushing each batch, until interrupted (SIGINT, SIGTERM), until standard output is \
            closed, or until --limit entries were printed; with --format table each batch is \
            its own table. --consumer NAME starts after the consumer's stored cursor instead of \
            --since, and commits the cursor after each printed batch (register consumers with \
            'kvstore journal consumers'). A start the journal was truncated past is an error \
            ('cursor expired').

            Examples:
              kvstore journal list ./store
              kvstore journal list ./store --since 42
              kvstore journal list ./store --since 42 --limit 10 --format table
              kvstore journal list ./store --follow
              kvstore journal list ./store --consumer indexer --follow
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Option(help: ArgumentHelp("Start at this sequence number (included; default 1).", valueName: "seq"))
    var since: UInt64?

    @Option(help: ArgumentHelp("Print at most this many entries.", valueName: "n"))
    var limit: Int?

    @Option(help: "The output format.")
    var format: JournalFormat = .jsonl

    @Flag(help: "Keep printing new entries as they commit.")
    var follow = false

    @Option(help: ArgumentHelp("Read after this durable consumer's cursor, and commit it as entries are printed.", valueName: "name"))
    var consumer: String?

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit)") }
        if since != nil && consumer != nil { throw ValidationError("--since and --consumer cannot be combined") }
    }

    func run() throws {
        try reportingErrors {
            if follow || consumer != nil {
                try followingOrConsuming()
                return
            }
            let store = try StoreAccess.openForReading(storePath.path)
            try JournalStart.check(since: since, in: store)
            let output = StandardOutput()
            try JournalListing.write(store, since: since ?? 1, limit: limit, format: format, to: output)
            try output.finish()
        }
    }
}

extension JournalListCommand {
    /// `--follow` or `--consumer`: see ``JournalFollowing``. Like a plain listing, an ephemeral
    /// follower starts at `--since` (an error when the journal was truncated past it) or at the
    /// journal's first entry.
    private func followingOrConsuming() throws {
        let store = try consumer == nil ? StoreAccess.openForReading(storePath.path) : StoreAccess.openExisting(storePath.path)
        let start: JournalFollowing.Start
        if let consumer {
            start = .consumer(try store.consumer(named: consumer))
        } else {
            try JournalStart.check(since: since, in: store)
            start = .after(max(max(since ?? 1, 1) - 1, try store.read { try $0.oldestCoveredCursor() }))
        }
        try JournalFollowing(store: store, start: start, limit: limit, format: format).run(follow: follow)
    }
}
