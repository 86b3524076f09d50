import ArgumentParser
import KVStore
import KVStoreSync

/// The output formats of `kvstore stat`.
enum StatFormat: String, CaseIterable, ExpressibleByArgument {
    /// Labelled lines for reading, section by section.
    case table
    /// One pretty-printed typed JSON object, for scripts.
    case json
}

/// `kvstore stat PATH`: counts, sizes, map use, readers, the journal's range, consumers and sources.
struct StatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stat",
        abstract: "Print a store's counts, sizes, map use, readers, journal range and consumers.",
        discussion: """
            table (the default) prints labelled lines: the store's id, format and creation \
            time; records per kind; the journal's first and last sequence, entries and last \
            commit; the durable consumers (cursor, lag, expired); the stores whose journals \
            were applied here and through which sequence; the data file's size, the map's \
            size and use, the page size and the pages of each database (records, journal, \
            meta) as mdb_stat counts them; the reader slots in use by other processes; and, for \
            a store that syncs, its sync status as 'kvstore sync --status' prints it. json \
            prints the same as one typed JSON object, with sizes in bytes.

            Durability is not stored in a store: each process chooses it when opening \
            (kvstore's commands use full).

            Examples:
              kvstore stat ./store
              kvstore stat ./store --format json | jq .journal.last
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Option(help: "The output format.")
    var format: StatFormat = .table

    func run() throws {
        try reportingErrors {
            let store = try StoreAccess.openForReading(storePath.path)
            let report = StatReport(try store.statistics(), sync: try SyncStatus.read(store))
            let output = StandardOutput()
            switch format {
            case .table: output.lines(report.lines())
            case .json: output.line(TypedJSON.string(from: report.json(), pretty: true))
            }
            try output.finish()
        }
    }
}
