import ArgumentParser
import KVStore

/// `kvstore query PATH KIND [PREDICATE] [--sort KEYPATH[:desc]]... [--limit N] [--offset N]
/// [--keys K1,K2] [--format jsonl|json|table] [--explain] [--follow] [--var NAME=VALUE]...`: the
/// records of a kind that match a predicate, in order, one page; with `--follow`, then their changes.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print the records of a kind that match a predicate, sorted and paged.",
        discussion: """
            PREDICATE is in the NSPredicate format over key paths (the PredicateLanguage \
            article): read == NO AND feed.title BEGINSWITH[c] 'swift'; without one, every \
            record of KIND matches. Its $variables take their values from --var NAME=VALUE, \
            VALUE typed JSON.

            Records print as dump prints them (jsonl {"kind","id","values"} by default), in \
            the order of the --sort keys, then by id; without --sort, in id order. A sort key \
            is KEYPATH[:asc|:desc][:c|:d|:cd|:localized]: c, d and cd fold strings as [c], \
            [d] and [cd] do in a predicate, localized orders them in the current locale; \
            missing values come first ascending, last descending. --offset skips results, \
            --limit caps them; ties go by id, so pages never overlap. --keys prints only the \
            named keys of each record (and decodes only those). --explain prints the plan \
            instead of the records: 'scan KIND' when every record of the kind is read.

            --follow prints the results, then follows the store's journal (writes of any \
            process) and prints one jsonl line per commit that changes them: \
            {"commit":N,"inserted":[ids],"deleted":[ids],"updated":[ids],"moved":[[from,to]...]} \
            (positions in the page before and after), until SIGINT or SIGTERM (status 0). \
            Commits arriving faster than lines are printed share one line, labelled with \
            the last commit.

            The query reads one snapshot. A bad predicate (its line and column named), sort \
            key, --var or option is one line on standard error and status 1 (64 for a \
            malformed command line).

            Examples:
              kvstore query ./store item "read == NO" --sort published:desc --limit 50
              kvstore query ./store item "feed == \\$feed" --var feed='{"$ref":"feed/swift"}' --keys title
              kvstore query ./store person "address.city ==[cd] 'zurich'" --sort name:c --format table
              kvstore query ./store item "title CONTAINS[c] 'lmdb'" --explain
              kvstore query ./store item "read == NO" --sort published:desc --limit 50 --follow
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Argument(help: ArgumentHelp("The kind queried.", valueName: "kind"))
    var kind: String

    @Argument(help: ArgumentHelp("A predicate; every record when absent.", valueName: "predicate"))
    var predicate: String?

    @Option(help: ArgumentHelp("A sort key, KEYPATH[:desc][:c|:d|:cd|:localized] (repeatable; the first sorts first).", valueName: "keypath"))
    var sort: [String] = []

    @Option(help: "Print at most N records.")
    var limit: Int?

    @Option(help: "Skip the first N records.")
    var offset: Int?

    @Option(help: ArgumentHelp("Print only these keys of each record, comma-separated.", valueName: "k1,k2"))
    var keys: String?

    @Option(help: "The output format.")
    var format: DumpFormat = .jsonl

    @Flag(help: "Print how the query would run ('scan KIND') instead of the records.")
    var explain = false

    @OptionGroup var variables: PredicateVariables

    @Flag(help: "Print the results, then one jsonl line per commit that changes them, until interrupted.")
    var follow = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit)") }
        if let offset, offset < 0 { throw ValidationError("--offset must be 0 or more, not \(offset)") }
        if follow && explain { throw ValidationError("--follow and --explain cannot be combined") }
    }

    func run() throws {
        try reportingErrors {
            let query = try makeQuery()
            let keys = try keys.map(Self.keyList)
            let store = try StoreAccess.openForReading(storePath.path)
            let output = StandardOutput()
            if explain {
                output.line(try store.explain(query).description)
            } else if follow {
                return try QueryFollowing(query: query, keys: keys, format: format).run(on: store)
            } else {
                try Self.list(query, keys: keys, of: store, format: format, to: output)
            }
            try output.finish()
        }
    }

    /// The query the arguments describe, checked before the store is opened.
    func makeQuery() throws -> RecordQuery {
        let kind = try Input.kind(kind)
        let (predicate, values) = try QueryInput.predicate(predicate, variables)
        let sort = try sort.map(KeyPathSort.init(parsing:))
        return RecordQuery(kind: kind, where: predicate, variables: values, sortedBy: sort, limit: limit, offset: offset ?? 0)
    }

    /// Writes the results of `query` in `format`, in one read transaction.
    static func list(_ query: RecordQuery, keys: [String]?, of store: Store, format: DumpFormat, to output: StandardOutput) throws {
        var listing = RecordListing(format: format, output: output)
        try store.read { txn in
            try txn.forEachRecord(matching: query, keys: keys) { record in
                listing.append(record)
                return output.failure == nil  // a closed pipe (`| head`) ends the listing
            }
        }
        listing.finish()
    }

    /// `K1,K2` as keys.
    static func keyList(_ text: String) throws -> [String] {
        let keys = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !keys.contains(where: \.isEmpty) else {
            throw CommandError("invalid --keys '\(text)': an empty key; give keys separated by single commas")
        }
        return keys
    }
}
