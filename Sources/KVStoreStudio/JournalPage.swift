import KVStore

/// The journal pane's entries: the newest first, before a sequence, filtered by record (`KIND/ID`,
/// or a kind alone) and by key path (the path or one inside it).
struct JournalPage {
    /// Entries read per step backwards while filtering.
    static let window: UInt64 = 2048

    let before: UInt64?
    let limit: Int
    let ref: String?
    let keyPath: String?

    init(_ parameters: [String: String]) throws {
        before = try parameters["before"].flatMap { text in
            guard !text.isEmpty else { return nil }
            guard let n = UInt64(text) else { throw StudioError.badRequest("'before' must be a sequence, not '\(text)'") }
            return n
        }
        let limit = parameters["limit"].flatMap { Int($0) } ?? 100
        guard (1...1000).contains(limit) else { throw StudioError.badRequest("'limit' must be from 1 to 1000") }
        self.limit = limit
        ref = parameters["ref"].flatMap { $0.isEmpty ? nil : $0 }
        keyPath = parameters["keyPath"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func matches(_ entry: JournalEntry) -> Bool {
        if let ref, ref.contains("/") ? entry.ref.description != ref : entry.ref.kind != ref { return false }
        if let keyPath {
            guard let path = entry.keyPath, path == keyPath || path.hasPrefix(keyPath + ".") else { return false }
        }
        return true
    }

    func read(_ txn: ReadTransaction) throws -> [String: Value] {
        let last = try txn.lastSequence()
        let first = try txn.firstSequence() ?? last + 1
        var end = min(before.map { $0 > 0 ? $0 - 1 : 0 } ?? last, last)  // the newest sequence still to read (0: none)
        var found: [JournalEntry] = []
        var leftOver = false
        while end >= first && end > 0 && found.count < limit {
            let start = max(first, end >= Self.window ? end - Self.window + 1 : 1)
            var chunk: [JournalEntry] = []
            try txn.forEachJournalEntry(from: start) { entry in
                guard entry.sequence <= end else { return false }
                if matches(entry) { chunk.append(entry) }
                return true
            }
            leftOver = chunk.count > limit - found.count
            found += chunk.reversed().prefix(limit - found.count)
            end = start - 1
        }
        return [
            "entries": .array(found.map(StudioJSON.entry)),
            "first": first <= last ? StudioJSON.number(first) : .null, "last": StudioJSON.number(last),
            "more": .bool(leftOver || (end >= first && end > 0)),
        ]
    }
}
