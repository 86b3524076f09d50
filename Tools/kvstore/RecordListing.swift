import ArgumentParser
import KVStore

/// The output formats of `kvstore dump`.
enum DumpFormat: String, CaseIterable, ExpressibleByArgument {
    /// One compact typed JSON object per line: `{"kind":…,"id":…,"values":{…}}`.
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

    /// The record as dump writes it, its fields in the contract's order
    /// (Sources/KVStore/KVStore.docc/StorageFormat.md, "Dump"):
    /// `{"kind":…,"id":…,"values":{…}}`, compact, or pretty with 2-space indentation.
    static func json(of record: Record, pretty: Bool = false) -> String {
        let kind = TypedJSON.string(from: .string(record.ref.kind))
        let id = TypedJSON.string(from: .string(record.ref.id))
        let values = TypedJSON.string(from: record.values, pretty: pretty)
        guard pretty else { return #"{"kind":\#(kind),"id":\#(id),"values":\#(values)}"# }
        let indentedValues = indenting(values, by: "  ", first: false)
        return "{\n  \"kind\": \(kind),\n  \"id\": \(id),\n  \"values\": \(indentedValues)\n}"
    }

    /// `text` with `prefix` after each line break, and before the first line when `first`
    /// (one pass over the bytes: splitting and joining strings made `--format json` 5× slower).
    static func indenting(_ text: String, by prefix: String, first: Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + text.utf8.count / 4)
        if first { bytes.append(contentsOf: prefix.utf8) }
        for byte in text.utf8 {
            bytes.append(byte)
            if byte == UInt8(ascii: "\n") { bytes.append(contentsOf: prefix.utf8) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Adds one record.
    mutating func append(_ record: Record) {
        defer { count += 1 }
        switch format {
        case .jsonl:
            output.line(Self.json(of: record))
        case .json:
            let object = Self.json(of: record, pretty: true)
            output.write((count == 0 ? "[\n" : ",\n") + Self.indenting(object, by: "  ", first: true))
        case .table:
            let keys = record.values.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            if keys.isEmpty { table.append([record.ref.description, "", "{}"]) }
            for key in keys { table.append([record.ref.description, Table.label(key), Table.cell(record.values[key])]) }
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

    /// Writes the records of `kind` (every kind when nil) of `store` in `format`, counting them
    /// on `progress` when given (its total is set from the kinds' counters).
    ///
    /// In jsonl, a store with applied migrations (``Migrator``) starts with a line listing them,
    /// `{"migrations":["v2","v3"]}`, which `load` records, so that they do not run again there.
    ///
    /// One read transaction covers the whole dump, so the dump is one snapshot: loading it gives a
    /// store as it was at one moment, even while writers go on. Memory stays constant for jsonl
    /// and json (records are decoded and written one at a time); table holds its rows to align them.
    /// The price is that pages freed by concurrent writers cannot be reused until the dump ends,
    /// so the data file may grow meanwhile.
    static func write(_ store: Store, kind: String?, format: DumpFormat, to output: StandardOutput, progress: Progress? = nil) throws {
        var listing = RecordListing(format: format, output: output)
        try store.read { txn in
            // A migrated store's records need its migrations recorded wherever they are loaded.
            let migrations = try txn.appliedMigrations()
            if format == .jsonl, !migrations.isEmpty {
                output.line(TypedJSON.string(from: [LoadRecord.migrationsKey: .array(migrations.map(Value.string))]))
            }
            try txn.forEachRecord(ofKind: kind) { record in
                listing.append(record)
                progress?.advance()
                // A closed pipe (`| head`) ends the listing: nothing will read the rest.
                return output.failure == nil
            }
        }
        listing.finish()
        progress?.finish()
    }
}
