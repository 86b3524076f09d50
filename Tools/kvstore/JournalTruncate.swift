import ArgumentParser
import KVStore

/// `kvstore journal truncate PATH --before SEQ [--force]`.
struct JournalTruncateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "truncate",
        abstract: "Delete journal entries older than a sequence.",
        discussion: """
            Deletes the entries with a sequence before SEQ, in one transaction, and prints one \
            typed JSON line: {"removed":N,"first":F,"last":L} (F is null when the journal is now \
            empty). Sequences are never reused: new entries continue after L. Truncating is not \
            itself journaled.

            A registered consumer (see 'kvstore journal consumers') holds truncation back: \
            dropping an entry it has not processed is refused, naming the consumer and its \
            cursor, unless --force is given; a consumer left behind then gets 'cursor expired'.

            Examples:
              kvstore journal truncate ./store --before 1000
              kvstore journal truncate ./store --before 1000 --force
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Option(help: ArgumentHelp("Delete the entries before this sequence (at most the last sequence + 1).", valueName: "seq"))
    var before: UInt64

    @Flag(help: "Truncate even past entries a registered consumer has not processed.")
    var force = false

    func run() throws {
        try reportingErrors {
            let store = try StoreAccess.openExisting(storePath.path)
            let removed = try store.truncateJournal(before: before, force: force)
            let (first, last) = try store.read { (try $0.firstSequence(), try $0.lastSequence()) }
            let output = StandardOutput()
            output.line(TypedJSON.string(from: [
                "removed": .int(Int64(removed)),
                "first": first.map { .int(Int64($0)) } ?? .null,
                "last": .int(Int64(last)),
            ]))
            try output.finish()
        }
    }
}
