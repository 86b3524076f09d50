import Hummingbird
import KVStore

/// One page of a kind's records for the table: in id order through range reads (`after` the
/// previous page's last id), or — with a predicate or sort keys — through a ``RecordQuery`` with
/// an offset; as of a journal sequence (id order only) when `asOf` is given.
struct RecordPage {
    static let maximumLimit = 1000

    let kind: String
    let predicate: KeyPathPredicate
    let sort: [KeyPathSort]
    let after: String?
    let offset: Int
    let limit: Int
    let asOf: UInt64?

    /// The page the query parameters ask for: `kind`, `where`, `sort` (KEYPATH[:desc], repeated
    /// with commas), `after`, `offset`, `limit`, `asOf`.
    init(_ parameters: [String: String]) throws {
        guard let kind = parameters["kind"] else { throw StudioError.badRequest("'kind' is missing") }
        do {
            try RecordRef.validate(kind: kind)
        } catch {
            throw StudioError.badRequest("\(error)")
        }
        self.kind = kind
        predicate = try Self.predicate(parameters["where"])
        do {
            sort = try (parameters["sort"] ?? "").split(separator: ",").map { try KeyPathSort(parsing: String($0)) }
        } catch {
            throw StudioError.badRequest("invalid sort: \(error)")
        }
        after = parameters["after"].flatMap { $0.isEmpty ? nil : $0 }
        offset = try Self.number(parameters["offset"], "offset") ?? 0
        limit = min(try Self.number(parameters["limit"], "limit") ?? 100, Self.maximumLimit)
        asOf = try Self.number(parameters["asOf"], "asOf").map(UInt64.init)
        if asOf != nil && (predicate != .true || !sort.isEmpty || offset > 0) {
            throw StudioError.badRequest("time travel shows the records in id order: clear the query and the sort first")
        }
    }

    /// A predicate in `kvstore query`'s language; its error carries the line and column.
    static func predicate(_ text: String?) throws -> KeyPathPredicate {
        guard let text, !text.allSatisfy(\.isWhitespace) else { return .true }
        let predicate: KeyPathPredicate
        do {
            predicate = try KeyPathPredicate(text)
        } catch {
            var details: [String: Value] = ["code": .string(error.code.rawValue)]
            if let line = error.line, let column = error.column {
                details["line"] = .int(Int64(line))
                details["column"] = .int(Int64(column))
            }
            throw StudioError.badRequest("invalid predicate: \(error)", details)
        }
        if let name = predicate.firstUnboundVariable(given: []) {
            throw StudioError.badRequest("invalid predicate: $\(name) has no value (the studio gives predicates no variables)")
        }
        return predicate
    }

    private static func number(_ text: String?, _ name: String) throws -> Int? {
        guard let text, !text.isEmpty else { return nil }
        guard let number = Int(text), number >= 0 else { throw StudioError.badRequest("'\(name)' must be a whole number, 0 or more, not '\(text)'") }
        return number
    }

    /// The page: rows, whether more follow, the kind's count, and — as of a sequence — which
    /// rows changed since.
    func read(_ txn: ReadTransaction) throws -> [String: Value] {
        var body: [String: Value] = ["kind": .string(kind)]
        var rows: [Record]
        var more: Bool
        if let asOf {
            let history = try HistoricState(txn, asOf: asOf, kind: kind)
            (rows, more) = try historicRows(txn, history)
            let changed = rows.filter { history.changed($0.ref) }
            body["changed"] = .array(changed.map { .string($0.ref.id) })
            body["deletedSince"] = .array(try changed.filter { try !txn.contains($0.ref) }.map { .string($0.ref.id) })
            body["asOf"] = StudioJSON.number(asOf)
        } else if predicate == .true && sort.isEmpty && offset == 0 {
            rows = try txn.records(ofKind: kind, from: after, to: nil, limit: limit + 2)
            if let after, rows.first?.ref.id == after { rows.removeFirst() }
            more = rows.count > limit
        } else {
            let query = RecordQuery(kind: kind, where: predicate, sortedBy: sort, limit: limit + 1, offset: offset)
            rows = try txn.fetch(query)
            more = rows.count > limit
        }
        rows = Array(rows.prefix(limit))
        body["rows"] = .array(rows.map { .dictionary(["id": .string($0.ref.id), "values": .dictionary($0.values)]) })
        body["more"] = .bool(more)
        body["total"] = predicate == .true ? .int(Int64(try txn.count(ofKind: kind))) : .null
        return body
    }

    /// The page in id order as of `history`: the current records that did not change since,
    /// merged with the changed ones as they were. At most `k` current records (the changed ones)
    /// drop out, so `limit + k` current records past `after` hold every unchanged row of the page.
    private func historicRows(_ txn: ReadTransaction, _ history: HistoricState) throws -> ([Record], Bool) {
        let extra = history.records.count
        var current = try txn.records(ofKind: kind, from: after, to: nil, limit: limit + 2 + extra)
        let exhausted = current.count < limit + 2 + extra
        let bound = current.last?.ref
        current.removeAll { history.changed($0.ref) }
        var rows = current + history.existingThen.filter { record in
            (after.map { $0.utf8.lexicographicallyPrecedes(record.ref.id.utf8) } ?? true) && (exhausted || bound.map { record.ref < $0 } ?? true)
        }
        rows.removeAll { $0.ref.id == after }
        rows.sort { $0.ref < $1.ref }
        return (rows, rows.count > limit || !exhausted)
    }
}
