import ArgumentParser
import KVStore

/// `kvstore dump PATH [--kind K] [--format jsonl|json|table]`: every record, ordered by kind then id.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print the store's records, ordered by kind then id.",
        discussion: """
            jsonl (the default) writes one compact typed JSON object per record and line, \
            {"id":…,"kind":…,"values":{…}}, with keys sorted: the same store always dumps to the \
            same bytes. json writes one pretty-printed array of those objects; table writes \
            aligned columns REF, KEY, VALUE for reading.

            Examples:
              kvstore dump ./store
              kvstore dump ./store --kind invoice --format table
              kvstore dump ./store --format json > store.json
            """
    )

    @Argument(help: "The store's directory.")
    var path: String

    @Option(help: "Only the records of this kind.")
    var kind: String?

    @Option(help: "The output format.")
    var format: DumpFormat = .jsonl

    func run() throws {
        try reportingErrors {
            let kind = try kind.map(Input.kind)
            let store = try StoreAccess.openForReading(path)
            let output = StandardOutput()
            try RecordListing.write(store, kind: kind, format: format, to: output)
            output.flush()
        }
    }
}
