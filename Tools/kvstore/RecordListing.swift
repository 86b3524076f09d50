import ArgumentParser
import KVStore

/// The output formats of `kvstore dump`.
enum DumpFormat: String, CaseIterable, ExpressibleByArgument {
    /// One compact typed JSON object per line: `{"id":…,"kind":…,"values":{…}}`.
    case jsonl
    /// One pretty-printed JSON array of those objects.
    case json
    /// Aligned columns REF, KEY, VALUE: one line per key of each record.
    case table
}

/// Writes records in a ``DumpFormat``, in the order they are given (the store gives them by kind,
/// then id). `jsonl` and `json` stream; `table` holds the rows until ``finish()`` aligns them.
///
/// ```swift
/// var listing = RecordListing(format: .jsonl, output: output)
/// try store.read { txn in try txn.forEachRecord { listing.append($0); return true } }
/// listing.finish()
/// ```
struct RecordListing {
    let format: DumpFormat
    private let output: StandardOutput
    private var table = Table(header: ["REF", "KEY", "VALUE"])
    private var count = 0

    init(format: DumpFormat, output: StandardOutput) {
        self.format = format
        self.output = output
    }

    /// The record as dump writes it: `{"id":…,"kind":…,"values":{…}}`.
    static func value(of record: Record) -> Value {
        ["id": .string(record.ref.id), "kind": .string(record.ref.kind), "values": .dictionary(record.values)]
    }

    /// Adds one record.
    mutating func append(_ record: Record) {
        defer { count += 1 }
        switch format {
        case .jsonl:
            output.line(TypedJSON.string(from: Self.value(of: record)))
        case .json:
            let object = TypedJSON.string(from: Self.value(of: record), pretty: true)
            let indented = object.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
            output.write((count == 0 ? "[\n" : ",\n") + indented.joined(separator: "\n"))
        case .table:
            let keys = record.values.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            if keys.isEmpty { table.append([record.ref.description, "", "{}"]) }
            for key in keys { table.append([record.ref.description, key, Table.cell(record.values[key])]) }
        }
    }

    /// Ends the listing: closes the JSON array, or writes the table.
    mutating func finish() {
        switch format {
        case .jsonl: break
        case .json: output.line(count == 0 ? "[]" : "\n]")
        case .table: output.lines(table.lines())
        }
    }

    /// Writes the records of `kind` (every kind when nil) of `store` in `format`.
    static func write(_ store: Store, kind: String?, format: DumpFormat, to output: StandardOutput) throws {
        var listing = RecordListing(format: format, output: output)
        try store.read { txn in
            try txn.forEachRecord(ofKind: kind) { record in
                listing.append(record)
                return true
            }
        }
        listing.finish()
    }
}
