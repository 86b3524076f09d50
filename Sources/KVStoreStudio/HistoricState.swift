import KVStore

/// The store as of a journal sequence, for the records that changed after it: their current
/// values with the journal's later entries undone, last first, from their old values.
///
/// Computed in the read transaction that reads the current records, so both are one snapshot.
/// Reading the later entries costs one journal scan from the sequence on: for a recent sequence
/// this is far cheaper than replaying the whole journal into a temporary store.
struct HistoricState {
    /// The sequence the state is as of: every entry after it is undone.
    let sequence: UInt64
    /// For each record changed after ``sequence``: its values then, nil when it did not exist.
    private(set) var records: [RecordRef: [String: Value]?] = [:]

    /// The state as of `sequence`, for the records of `kind` (all kinds when nil) or the record `ref`.
    /// - Throws: ``StudioError`` when the journal was truncated past `sequence`, or `sequence` is
    ///   after its end.
    init(_ txn: ReadTransaction, asOf sequence: UInt64, kind: String? = nil, ref: RecordRef? = nil) throws {
        self.sequence = sequence
        let last = try txn.lastSequence()
        guard sequence <= last else {
            throw StudioError.badRequest("sequence \(sequence) is after the journal's last, \(last)")
        }
        // An emptied journal keeps its last sequence: it starts, as it were, at last + 1.
        let first = try txn.firstSequence() ?? last + 1
        if sequence < last, first > sequence + 1 {
            throw StudioError.badRequest(
                "the journal no longer holds the entries after \(sequence) (it starts at \(first)): time travel reaches back to \(first - 1)")
        }
        var later: [RecordRef: [JournalEntry]] = [:]
        try txn.forEachJournalEntry(from: sequence + 1) { entry in
            guard !entry.isDerived, entry.change != .kindDeclared,
                  kind.map({ entry.ref.kind == $0 }) ?? true, ref.map({ entry.ref == $0 }) ?? true else { return true }
            later[entry.ref, default: []].append(entry)
            return true
        }
        for (ref, entries) in later {
            var values = try txn.record(ref)
            for entry in entries.reversed() { Self.undo(entry, &values) }
            records[ref] = .some(values)
        }
    }

    /// Whether `ref` changed after ``sequence``.
    func changed(_ ref: RecordRef) -> Bool { records[ref] != nil }

    /// The values of `ref` as of ``sequence``, given its current ones.
    func values(of ref: RecordRef, current: [String: Value]?) -> [String: Value]? {
        if let then = records[ref] { return then }
        return current
    }

    /// The records changed after ``sequence`` that existed then, with their values then.
    var existingThen: [Record] {
        records.compactMap { ref, values in values.map { Record(ref: ref, values: $0) } }
    }

    /// Undoes one entry on a record's values (nil: no record).
    static func undo(_ entry: JournalEntry, _ values: inout [String: Value]?) {
        switch entry.change {
        case .recordInserted:
            values = nil
        case .recordDeleted:
            if case .dictionary(let old)? = entry.oldValue { values = old }
        case .setting:
            guard let keyPath = entry.keyPath, var record = values else { return }
            Self.set(entry.oldValue, at: keyPath.split(separator: ".").map(String.init)[...], in: &record)
            values = record
        case .insertion, .removal, .replacement:
            guard let keyPath = entry.keyPath, let indexes = entry.indexes, var record = values else { return }
            let keys = keyPath.split(separator: ".").map(String.init)[...]
            guard case .array(var array)? = Self.value(at: keys, in: record) else { return }
            let old = entry.oldValue?.arrayValue ?? []
            switch entry.change {
            case .insertion:
                for index in indexes.sorted(by: >) where array.indices.contains(index) { array.remove(at: index) }
            case .removal:
                for (index, element) in zip(indexes, old) { array.insert(element, at: min(index, array.count)) }
            default:
                for (index, element) in zip(indexes, old) where array.indices.contains(index) { array[index] = element }
            }
            Self.set(.array(array), at: keys, in: &record)
            values = record
        case .kindDeclared:
            break
        }
    }

    private static func value(at keys: ArraySlice<String>, in dictionary: [String: Value]) -> Value? {
        guard let first = keys.first, let value = dictionary[first] else { return nil }
        if keys.count == 1 { return value }
        guard case .dictionary(let inner) = value else { return nil }
        return Self.value(at: keys.dropFirst(), in: inner)
    }

    /// Puts `value` at the key path (removes the key when nil), through nested dictionaries.
    private static func set(_ value: Value?, at keys: ArraySlice<String>, in dictionary: inout [String: Value]) {
        guard let first = keys.first else { return }
        if keys.count == 1 {
            dictionary[first] = value
            return
        }
        var inner: [String: Value] = [:]
        if case .dictionary(let existing)? = dictionary[first] { inner = existing }
        Self.set(value, at: keys.dropFirst(), in: &inner)
        dictionary[first] = .dictionary(inner)
    }
}
