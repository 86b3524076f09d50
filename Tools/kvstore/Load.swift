import ArgumentParser
import Foundation
import KVStore

/// `kvstore load PATH [FILE|-]`: inserts the records of a jsonl stream, as `dump` writes it.
struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Insert records from jsonl, the format 'kvstore dump' writes.",
        discussion: """
            Each line is one record, {"kind":…,"id":…,"values":{…}} with typed JSON values; \
            blank lines are skipped. A line may be at most 128 MiB (134,217,728 bytes: the \
            typed JSON of the largest record a 64 MiB journal frame carries, its bytes in \
            base64); a longer one is an error naming it. A line without "id" gets a generated one (time-ordered, as \
            the library's insert makes). Every record is inserted through the journal (one \
            recordInserted entry each). Creates the store when nothing is at PATH (or PATH is \
            an empty directory). Reads standard input when FILE is - or absent. A first line \
            {"migrations":[…]}, which dump writes for a migrated store, records those \
            migrations as applied; a store that has applied others, or holds records and has \
            applied none, refuses it.

            All or nothing by default: the whole input is one transaction, so any bad line — \
            malformed JSON, a bad kind or id, a record that already exists — leaves the store \
            as it was (a store created for the load is removed again), and the error names the \
            line: 'kvstore: line 17: …'. With --batch N, every N records commit on their own: \
            a bad line leaves the batches before it committed (a store created for the load \
            is removed when none did), and the error says how many records were loaded. With --replace, a record that exists is replaced whole \
            (journaled as its deletion, then the insertion).

            Examples:
              kvstore dump ./old > records.jsonl && kvstore load ./new records.jsonl
              kvstore dump ./old | kvstore load ./new
              kvstore load ./store big.jsonl --batch 10000
            """
    )

    @OptionGroup var storePath: StorePathArgument<StoreCreatedWhenAbsent>

    @Argument(help: ArgumentHelp("The jsonl file, or - for standard input.", valueName: "file"))
    var input: String = "-"

    @Option(help: ArgumentHelp("Commit every N records, instead of all at once.", valueName: "n"))
    var batch: Int?

    @Flag(help: "Replace records that already exist, instead of failing.")
    var replace = false

    func validate() throws {
        if let batch, batch < 1 { throw ValidationError("--batch must be 1 or more, not \(batch)") }
    }

    func run() throws {
        var progress = Progress(label: "loading", unit: "lines", enabled: false)
        try reportingErrors {
            if input == "-" && isatty(0) == 1 {
                FileDescriptorOutput.writeAll(Array("kvstore: reading jsonl records from the terminal; end with Ctrl-D (or give a FILE)\n".utf8), to: 2)
            }
            let reader = try LineReader(path: input)
            if isatty(2) == 1 { progress = Progress(label: "loading", unit: "lines", total: reader.countLines()) }
            let newStore = NewStore(at: storePath.path)
            var loader: Loader?
            do {
                let store = try StoreAccess.openCreating(storePath.path, mapSize: Self.mapSize(forInputOf: reader.size))
                loader = Loader(store: store, reader: reader, replace: replace, progress: progress)
                try loader?.run(batch: batch)
            } catch {
                progress.clear()
                if (loader?.committed ?? 0) == 0 {
                    loader = nil  // closes the store before its files go
                    newStore.remove()
                }
                throw error
            }
            progress.finish()
        }
    }

    /// Enough map for the records and their journal entries, so the write does not start over.
    private static func mapSize(forInputOf bytes: Int) -> Int {
        var size = 64 << 20
        while size < bytes.multipliedReportingOverflow(by: 4).partialValue && size < 1 << 40 { size <<= 1 }
        return size
    }
}

/// Inserts what a ``LineReader`` gives, in one write or in batches.
private struct Loader {
    let store: Store
    let reader: LineReader
    let replace: Bool
    let progress: Progress
    /// The records committed so far.
    private(set) var committed = 0

    init(store: Store, reader: LineReader, replace: Bool, progress: Progress) {
        self.store = store
        self.reader = reader
        self.replace = replace
        self.progress = progress
    }

    /// Loads everything: in one write when `batch` is nil, else `batch` records per write.
    mutating func run(batch: Int?) throws {
        while true {
            let start = reader.mark
            let inserted: Int
            do {
                inserted = try store.write { txn in
                    txn.keepsEntries = false
                    reader.seek(to: start)  // the write may run again after growing the map
                    progress.rewind(to: start.lineNumber)
                    return try insertLines(upTo: batch ?? .max, in: txn)
                }
            } catch {
                guard let batch else { throw CommandError("\(error); nothing was loaded") }
                throw CommandError("\(error); \(committed) records were loaded before it (committed in batches of \(batch))")
            }
            committed += inserted
            if inserted < (batch ?? .max) { return }
        }
    }

    /// Inserts the next `limit` records (fewer at the end of the input). - Returns: how many.
    private func insertLines(upTo limit: Int, in txn: WriteTransaction) throws -> Int {
        var count = 0
        while count < limit, let line = try reader.nextLine() {
            progress.advance()
            let parsed = try LoadRecord.parse(line, number: reader.lineNumber)
            do {
                switch parsed {
                case nil: continue
                case .migrations(let names)?:
                    guard count == 0, committed == 0 else {
                        throw CommandError("a \"\(LoadRecord.migrationsKey)\" line comes before every record")
                    }
                    try txn.adoptMigrations(names)
                case .record(let record)?:
                    try insert(record, in: txn)
                    count += 1
                }
            } catch {
                throw CommandError("line \(reader.lineNumber): \(error)")
            }
        }
        return count
    }

    private func insert(_ record: LoadRecord, in txn: WriteTransaction) throws {
        guard let id = record.id else {
            try txn.insert(record.values, kind: record.kind)
            return
        }
        let ref = try RecordRef(kind: record.kind, id: id)
        if replace, try txn.contains(ref) { try txn.delete(ref) }
        try txn.insert(record.values, as: ref)
    }
}
