import ArgumentParser
import Foundation
import KVStore

/// The output formats of `kvstore journal list`.
enum JournalFormat: String, CaseIterable, ExpressibleByArgument {
    /// Each entry's dictionary form as one compact typed JSON object per line.
    case jsonl
    /// Aligned columns SEQ, COMMIT, TIME, REF, KEYPATH, CHANGE, OLD, NEW.
    case table
}

/// Writes journal entries in a ``JournalFormat``: `jsonl` streams, `table` holds the rows until
/// ``finish()`` aligns them.
///
/// ```swift
/// try JournalListing.write(store, since: 1, limit: nil, format: .table, to: output)
/// ```
struct JournalListing {
    let format: JournalFormat
    private let output: StandardOutput
    private var table = Table(header: ["SEQ", "COMMIT", "TIME", "REF", "KEYPATH", "CHANGE", "OLD", "NEW"])
    /// The longest OLD or NEW cell in a table; longer values end in `…` (jsonl has them whole).
    static let valueCellLimit = 80

    init(format: JournalFormat, output: StandardOutput) {
        self.format = format
        self.output = output
    }

    /// Adds one entry.
    mutating func append(_ entry: JournalEntry) {
        switch format {
        case .jsonl:
            var fields = entry.dictionary
            // Text, not the packed int: a JSON reader's double would lose its low digits.
            if let stamp = entry.stamp { fields["stamp"] = .string(stamp.jsonText) }
            output.line(TypedJSON.string(from: .dictionary(fields)))
        case .table:
            var change = entry.change.rawValue
            if let indexes = entry.indexes { change += "[" + indexes.map(String.init).joined(separator: ",") + "]" }
            if entry.isDerived { change += " (derived)" }
            table.append([
                String(entry.sequence),
                String(entry.commitID),
                entry.timestamp.formatted(.iso8601),
                entry.ref.description,
                entry.keyPath ?? "-",
                change,
                Table.cell(entry.oldValue, limit: Self.valueCellLimit),
                Table.cell(entry.newValue, limit: Self.valueCellLimit),
            ])
        }
    }

    /// Ends the listing: writes the table.
    func finish() {
        if format == .table { output.lines(table.lines()) }
    }

    /// Writes the entries of `store`'s journal from sequence `since` on, through the last entry
    /// when the listing starts, at most `limit` of them.
    ///
    /// Entries are read in short read transactions of ``chunkSize`` entries, not one transaction
    /// for the whole listing: a listing piped into a slow reader must not hold a snapshot that
    /// keeps LMDB from reusing pages. Entries never change once written, so the chunks read the
    /// same entries one transaction would (a truncation meanwhile drops the entries it removed).
    static func write(_ store: Store, since: UInt64, limit: Int?, format: JournalFormat, to output: StandardOutput) throws {
        var listing = JournalListing(format: format, output: output)
        var remaining = limit ?? .max
        let last = try store.read { try $0.lastSequence() }
        var next = since
        while remaining > 0 && next <= last {
            let chunk = try store.read { try $0.journalEntries(from: next, limit: min(chunkSize, remaining)) }
                .prefix { $0.sequence <= last }
            guard let end = chunk.last?.sequence else { break }
            for entry in chunk { listing.append(entry) }
            remaining -= chunk.count
            next = end + 1
        }
        listing.finish()
    }

    /// How many entries one read transaction of a listing reads.
    static let chunkSize = 4096
}
