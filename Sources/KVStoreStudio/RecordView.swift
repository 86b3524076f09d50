import KVStore

/// What the record view shows: a record's values (as of a sequence, with the keys changed since),
/// and the records that reference it, found through the indexes of declared kinds.
enum RecordView {
    /// The most referencing records listed per index.
    static let referenceLimit = 20

    static func read(_ txn: ReadTransaction, ref: RecordRef, asOf: UInt64?) throws -> [String: Value] {
        let current = try txn.record(ref)
        var body: [String: Value] = ["ref": .string(ref.description), "kind": .string(ref.kind), "id": .string(ref.id)]
        var values = current
        if let asOf {
            let history = try HistoricState(txn, asOf: asOf, ref: ref)
            values = history.values(of: ref, current: current)
            let keys = Set((values ?? [:]).keys).union((current ?? [:]).keys)
            body["changedKeys"] = .array(keys.filter { values?[$0] != current?[$0] }.sorted().map(Value.string))
            body["current"] = current.map(Value.dictionary) ?? .null
            body["asOf"] = StudioJSON.number(asOf)
        }
        guard let values else {
            throw StudioError(status: .notFound, message: asOf.map { "\(ref): no such record as of sequence \($0)" } ?? "\(ref): no such record")
        }
        body["values"] = .dictionary(values)
        // The page edits these: JavaScript's JSON.parse reads 3.0 as the integer 3 and rounds 2^53 + 1.
        body["texts"] = .dictionary(values.mapValues { .string(TypedJSON.string(from: $0)) })
        body["exists"] = .bool(current != nil)
        body["referencedBy"] = .array(try referencing(ref, txn).map(Value.dictionary))
        return body
    }

    /// For each index of a declared kind whose first key path can hold `ref`: the records whose
    /// value there is `ref` (an index lookup; a kind without a usable index is not scanned).
    private static func referencing(_ ref: RecordRef, _ txn: ReadTransaction) throws -> [[String: Value]] {
        var groups: [[String: Value]] = []
        for kind in try txn.declaredKinds() {
            var seen: Set<String> = []
            for index in kind.indexes {
                guard let keyPath = index.keyPaths.first?.description, seen.insert(keyPath).inserted,
                      let predicate = try? KeyPathPredicate("\(keyPath) == $target") else { continue }
                let query = RecordQuery(
                    kind: kind.name, where: predicate, variables: ["target": .reference(ref)], limit: referenceLimit + 1)
                guard !(try txn.explain(query).description.hasPrefix("scan")) else { continue }
                let records = try txn.fetch(query, keys: [])
                guard !records.isEmpty else { continue }
                groups.append([
                    "kind": .string(kind.name), "keyPath": .string(keyPath),
                    "ids": .array(records.prefix(referenceLimit).map { .string($0.ref.id) }),
                    "more": .bool(records.count > referenceLimit),
                ])
            }
        }
        return groups
    }

    /// The kinds with their counts and indexes, the journal's range, and what the page may do.
    static func kinds(_ txn: ReadTransaction, readOnly: Bool, path: String) throws -> [String: Value] {
        let declared = Dictionary(try txn.declaredKinds().map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let kinds: [Value] = try txn.kinds().map { entry in
            let kind = declared[entry.kind]
            return .dictionary([
                "kind": .string(entry.kind), "count": .int(Int64(entry.count)),
                "indexes": .array((kind?.indexes ?? []).map { .string($0.name) }),
                "closed": .bool(kind?.isClosed ?? false),
            ])
        }
        return [
            "path": .string(path), "readOnly": .bool(readOnly), "kinds": .array(kinds),
            "journal": .dictionary([
                "first": try txn.firstSequence().map(StudioJSON.number) ?? .null,
                "last": StudioJSON.number(try txn.lastSequence()),
            ]),
        ]
    }
}
