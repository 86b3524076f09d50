import ArgumentParser
import KVStore

/// `kvstore index add|drop|list`: a kind's secondary indexes.
struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Add, drop and list the secondary indexes of a store's kinds.",
        discussion: """
            An index orders a kind's records by the values at one key path, or several \
            (compound: KEYPATH,KEYPATH…); an array's elements are indexed one by one. Every \
            write keeps it in the same transaction as the record; 'kvstore verify' checks it. \
            --unique refuses a write that gives two records the same values; --fold indexes \
            strings case- and diacritic-insensitively, for [cd] queries.

            Examples:
              kvstore index add ./store item feed,published
              kvstore index add ./store item guid --unique
              kvstore index add ./store item title --fold
              kvstore index list ./store
              kvstore index drop ./store item feed,published
            """,
        subcommands: [IndexAddCommand.self, IndexDropCommand.self, IndexListCommand.self]
    )
}

/// The `KIND KEYPATH[,KEYPATH...]` of `index add` and `index drop`.
struct IndexTarget: ParsableArguments {
    @Argument(help: ArgumentHelp("The kind whose records the index orders.", valueName: "kind"))
    var kind: String

    @Argument(help: ArgumentHelp("The key path, or several separated by commas (a compound index).", valueName: "keypaths"))
    var keyPaths: String

    /// The key paths, checked.
    func paths() throws -> [String] {
        let paths = keyPaths.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        _ = try KindIndex(paths)
        return paths
    }
}

/// `kvstore index add PATH KIND KEYPATH[,KEYPATH...] [--unique] [--fold]`.
struct IndexAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Declare an index on a kind and build it over the kind's records.",
        discussion: """
            Builds the index in one transaction, with progress on standard error when it is a \
            terminal. A unique index that two records already violate is refused, naming them, \
            and nothing changes.
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>
    @OptionGroup var target: IndexTarget

    @Flag(help: "Refuse writes that give two records the same indexed values.")
    var unique = false

    @Flag(help: "Index strings case- and diacritic-insensitively (for [cd] queries).")
    var fold = false

    func run() throws {
        try reportingErrors {
            let kind = try Input.kind(target.kind)
            let index = try KindIndex(try target.paths(), unique: unique, folded: fold)
            let store = try StoreAccess.openExisting(storePath.path)
            let progress = Progress(label: "indexing", unit: "records", total: try store.read { try $0.count(ofKind: kind) })
            do {
                try store.declareIndex(index, ofKind: kind) { progress.advance(by: $0) }
            } catch {
                progress.clear()
                throw error
            }
            progress.finish()
        }
    }
}

/// `kvstore index drop PATH KIND KEYPATH[,KEYPATH...] [--fold]`.
struct IndexDropCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop",
        abstract: "Drop an index of a kind, with all its entries.",
        discussion: """
            When a kind has both a plain and a folded index on the same key paths, drops the \
            plain one, or the folded one with --fold.
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>
    @OptionGroup var target: IndexTarget

    @Flag(help: "Drop the folded index.")
    var fold = false

    func run() throws {
        try reportingErrors {
            let kind = try Input.kind(target.kind)
            let paths = try target.paths()
            let store = try StoreAccess.openExisting(storePath.path)
            try store.dropIndex(on: paths, folded: fold ? true : nil, ofKind: kind)
        }
    }
}

/// `kvstore index list PATH [KIND] [--format jsonl|table]`.
struct IndexListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the indexes built in a store, with their sizes.",
        discussion: """
            jsonl (the default) writes one object per index with the fields kind, index (its \
            key paths, comma-separated), unique, folded, records (with an entry), entries (a \
            record has one per distinct element of an array) and unknown (records whose key \
            path runs into a reference: every query re-checks them); table writes the columns \
            KIND, INDEX, FLAGS, RECORDS, ENTRIES, UNKNOWN. In kind order, then by index.
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Argument(help: ArgumentHelp("Only this kind's indexes.", valueName: "kind"))
    var kind: String?

    @Option(help: "The output format.")
    var format: JournalFormat = .jsonl

    func run() throws {
        try reportingErrors {
            let kind = try kind.map(Input.kind)
            let store = try StoreAccess.openForReading(storePath.path)
            let output = StandardOutput()
            let statuses = try store.indexStatuses(ofKind: kind)
            switch format {
            case .jsonl:
                for status in statuses {
                    output.line(TypedJSON.string(from: [
                        "kind": .string(status.kind), "index": .string(status.index.name),
                        "unique": .bool(status.index.isUnique), "folded": .bool(status.index.isFolded),
                        "records": .int(Int64(status.records)), "entries": .int(Int64(status.entries)),
                        "unknown": .int(Int64(status.unknown)),
                    ]))
                }
            case .table:
                var table = Table(header: ["KIND", "INDEX", "FLAGS", "RECORDS", "ENTRIES", "UNKNOWN"])
                for status in statuses {
                    let flags = [status.index.isUnique ? "unique" : nil, status.index.isFolded ? "folded" : nil].compactMap { $0 }
                    table.append([status.kind, status.index.name, flags.isEmpty ? "-" : flags.joined(separator: ","),
                                  String(status.records), String(status.entries), String(status.unknown)])
                }
                output.lines(table.lines())
            }
            try output.finish()
        }
    }
}
