import ArgumentParser
import KVStore

/// `kvstore dump PATH [--kind K] [--format jsonl|json|table]`: every record, ordered by kind then id.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print the store's records, ordered by kind then id.",
        discussion: """
            jsonl (the default) writes one compact typed JSON object per record and line, \
            {"kind":…,"id":…,"values":{…}}, the values' keys sorted: the same store always dumps to the \
            same bytes, which 'kvstore load' reads back; a store with applied migrations \
            starts with {"migrations":[…]}, so that load records them. json writes one pretty-printed array \
            of those objects; table writes aligned columns REF, KEY, VALUE for reading.

            The dump reads one snapshot (one read transaction), in constant memory for jsonl \
            and json; table holds its rows until it aligns them. A kind without records dumps \
            nothing. When standard error is a terminal and standard output is not, a progress \
            bar on standard error counts the records.

            Examples:
              kvstore dump ./store
              kvstore dump ./store --kind invoice --format table
              kvstore dump ./store --format json > store.json
            """
    )

    @OptionGroup var storePath: StorePathArgument<ExistingStore>

    @Option(help: "Only the records of this kind.")
    var kind: String?

    @Option(help: "The output format.")
    var format: DumpFormat = .jsonl

    func run() throws {
        try reportingErrors {
            let kind = try kind.map(Input.kind)
            let store = try StoreAccess.openForReading(storePath.path)
            let output = StandardOutput()
            let total = try store.read { txn in
                try kind.map { try txn.count(ofKind: $0) } ?? txn.kinds().reduce(0) { $0 + $1.count }
            }
            // No bar when the records go to the terminal as well: it would be drawn among them.
            let progress = Progress(label: "dumping", unit: "records", total: total, enabled: Progress.terminalApartFromOutput)
            try RecordListing.write(store, kind: kind, format: format, to: output, progress: progress)
            try output.finish()
        }
    }
}
