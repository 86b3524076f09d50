import KVStore
import KVStoreSync
import KVStoreTemplates

/// What `kvstore stat` prints, as sections of labelled rows (table) or one typed JSON object
/// (json). Each section gives both forms, so the two never disagree.
///
struct StatReport {
    /// One part of the report: its JSON key and value, and its lines for reading.
    struct Section {
        let key: String
        let json: Value
        let rows: [(label: String, text: String)]
    }

    let sections: [Section]

    init(_ stats: StoreStatistics, sync: SyncStatus? = nil) {
        sections = [
            Self.store(stats), Self.records(stats), Self.journal(stats), Self.consumers(stats),
            Self.replication(stats), Self.storage(stats), Self.readers(stats),
        ] + (sync.map { [Self.sync($0)] } ?? [])
    }

    /// The whole report as one object, a key per section.
    func json() -> Value {
        .dictionary(Dictionary(uniqueKeysWithValues: sections.map { ($0.key, $0.json) }))
    }

    /// The report for reading: each section's rows, labels aligned, a blank line between sections.
    func lines() -> [String] {
        let width = sections.flatMap(\.rows).map(\.label.count).max() ?? 0
        var lines: [String] = []
        for section in sections {
            if !lines.isEmpty { lines.append("") }
            for row in section.rows {
                lines.append(row.text.isEmpty ? row.label : row.label.padding(width + 2) + row.text)
            }
        }
        return lines
    }

    // MARK: Sections

    private static func store(_ stats: StoreStatistics) -> Section {
        let created = stats.created.map(Value.date) ?? .null
        return Section(key: "store", json: .dictionary([
            "path": .string(stats.path), "id": .string(stats.storeID.uuidString.lowercased()),
            "format": .int(Int64(stats.formatVersion)), "created": created,
            "durability": .string(stats.durability.rawValue),
            "role": .string(role(stats.role).name), "replicaOf": role(stats.role).source.map(Value.string) ?? .null,
        ]), rows: [
            ("store", stats.path),
            ("id", stats.storeID.uuidString.lowercased()),
            ("format", "\(stats.formatVersion)"),
            ("created", stats.created.map { Template.text(of: .date($0)) } ?? "unknown"),
            ("durability", "\(stats.durability.rawValue) (chosen by each process that opens the store)"),
            ("role", role(stats.role).text),
        ])
    }

    /// The role's JSON name, its source's id, and its line for reading.
    private static func role(_ role: ReplicationRole) -> (name: String, source: String?, text: String) {
        switch role {
        case .primary:
            ("primary", nil, "primary (takes local writes)")
        case .replica(let source):
            ("replica", source.uuidString.lowercased(), "replica of \(source.uuidString.lowercased()) (refuses local writes; kvstore promote makes it writable)")
        case .promoted(let source):
            ("promoted", source.uuidString.lowercased(), "promoted (was a replica of \(source.uuidString.lowercased()); takes local writes)")
        }
    }

    private static func records(_ stats: StoreStatistics) -> Section {
        let total = stats.kinds.reduce(0) { $0 + $1.count }
        let kinds = Dictionary(uniqueKeysWithValues: stats.kinds.map { ($0.kind, Value.int(Int64($0.count))) })
        return Section(
            key: "records", json: .dictionary(["total": .int(Int64(total)), "kinds": .dictionary(kinds)]),
            rows: [("records", Progress.grouped(total) + (stats.kinds.isEmpty ? "" : ", by kind:"))]
                + stats.kinds.map { ("  \($0.kind)", Progress.grouped($0.count)) })
    }

    private static func journal(_ stats: StoreStatistics) -> Section {
        let journal = stats.journal
        let range = journal.first.map { "sequences \($0)…\(journal.last)" } ?? "empty (last sequence \(journal.last))"
        return Section(key: "journal", json: .dictionary([
            "first": journal.first.map { .int(Int64($0)) } ?? .null, "last": .int(Int64(journal.last)),
            "entries": .int(Int64(journal.entries)), "lastCommit": .int(Int64(journal.lastCommit)),
        ]), rows: [
            ("journal", "\(Progress.grouped(journal.entries)) entries, \(range)"),
            ("last commit", "\(journal.lastCommit)"),
        ])
    }

    private static func consumers(_ stats: StoreStatistics) -> Section {
        Section(key: "consumers", json: .array(stats.consumers.map { consumer in
            .dictionary([
                "name": .string(consumer.name), "cursor": .int(Int64(consumer.cursor)),
                "lag": .int(Int64(consumer.lag)), "expired": .bool(consumer.isExpired),
            ])
        }), rows: [("consumers", stats.consumers.isEmpty ? "none" : "\(stats.consumers.count), cursor and lag:")]
            + stats.consumers.map { consumer in
                ("  \(consumer.name)", "read through \(consumer.cursor), \(Progress.grouped(Int(consumer.lag))) behind"
                    + (consumer.isExpired ? " (expired: the journal was truncated past its cursor)" : ""))
            })
    }

    private static func replication(_ stats: StoreStatistics) -> Section {
        let sources = stats.replicationSources
        return Section(key: "replication", json: .array(sources.map { source in
            .dictionary([
                "source": .string(source.source.uuidString.lowercased()), "applied": .int(Int64(source.appliedSequence)),
                "sourceLast": source.sourceLastSequence.map { .int(Int64($0)) } ?? .null,
                "lag": source.lag.map { .int(Int64($0)) } ?? .null,
            ])
        }), rows: [("sources", sources.isEmpty ? "none (nothing replicated here)" : "\(sources.count) store(s) applied here:")]
            + sources.map { source in
                let position = source.sourceLastSequence.map { "source at \($0), lag \(Progress.grouped(Int(source.lag ?? 0)))" }
                    ?? "source's last sequence unknown"
                return ("  store", "\(source.source.uuidString.lowercased()) applied through \(source.appliedSequence), \(position)")
            })
    }

    private static func storage(_ stats: StoreStatistics) -> Section {
        let environment = stats.environment
        let used = Double(environment.bytesUsed) / Double(max(environment.mapSize, 1)) * 100
        var databases: [String: Value] = [:]
        var rows: [(label: String, text: String)] = [
            ("file size", bytes(stats.fileSize)),
            ("map", "\(bytes(environment.mapSize)), \(bytes(environment.bytesUsed)) used (\((used * 10).rounded() / 10)%)"),
            ("pages", "\(Progress.grouped(environment.pagesUsed)) used, \(Progress.grouped(environment.pageSize)) bytes each"),
        ]
        for name in stats.databases.keys.sorted() {
            guard let db = stats.databases[name] else { continue }
            databases[name] = .dictionary([
                "entries": .int(Int64(db.entries)), "depth": .int(Int64(db.depth)),
                "branchPages": .int(Int64(db.branchPages)), "leafPages": .int(Int64(db.leafPages)),
                "overflowPages": .int(Int64(db.overflowPages)), "bytes": .int(Int64(db.bytes)),
            ])
            rows.append(("  \(name)", "\(Progress.grouped(db.entries)) entries, depth \(db.depth), pages: "
                + "\(Progress.grouped(db.leafPages)) leaf, \(Progress.grouped(db.branchPages)) branch, "
                + "\(Progress.grouped(db.overflowPages)) overflow, \(Progress.grouped(db.bytes)) bytes"))
        }
        return Section(key: "storage", json: .dictionary([
            "fileSize": .int(Int64(stats.fileSize)), "mapSize": .int(Int64(environment.mapSize)),
            "mapUsed": .int(Int64(environment.bytesUsed)), "pageSize": .int(Int64(environment.pageSize)),
            "pagesUsed": .int(Int64(environment.pagesUsed)), "lastTransaction": .int(Int64(environment.lastTransaction)),
            "databases": .dictionary(databases),
        ]), rows: rows)
    }

    private static func readers(_ stats: StoreStatistics) -> Section {
        Section(key: "readers", json: .dictionary([
            "max": .int(Int64(stats.environment.maxReaders)), "active": .array(stats.readers.map(Value.string)),
        ]), rows: [("readers", "\(stats.readers.count) active, of \(stats.environment.maxReaders) slots")]
            + stats.readers.map { ("  pid thread txn", $0.trimmingLeadingSpaces()) })
    }

    /// `n` bytes for reading: `98,304 bytes (96.0 KiB)`.
    static func bytes(_ n: Int) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var size = Double(n), unit = -1
        while size >= 1024 && unit < units.count - 1 {
            size /= 1024
            unit += 1
        }
        let grouped = "\(Progress.grouped(n)) bytes"
        return unit < 0 ? grouped : "\(grouped) (\((size * 10).rounded() / 10) \(units[unit]))"
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }

    fileprivate func trimmingLeadingSpaces() -> String {
        String(drop { $0 == " " })
    }
}
