import LMDB

/// What a write transaction keeps to maintain indexes.
struct IndexWriteState {
    /// The built indexes each kind's writes keep, with the declarations they were found for.
    var resolved: [String: (declared: [KindIndex], built: [BuiltIndex])] = [:]
    /// Called with the number of records an index build went through since the last call.
    var buildProgress: ((Int) -> Void)?
}

/// What one record's write does to its kind's indexes: each index's entries before and after
/// (nil: no record).
struct IndexChanges {
    let ref: RecordRef
    var indexes: [(built: BuiltIndex, old: IndexEntries?, new: IndexEntries?)] = []
}

/// Index maintenance: every write of a record — insert, delete, a key set, a key path set, an
/// array edit, an applied journal entry — computes its record's entries in each index of its kind
/// before and after, checks the unique ones before anything is written, then writes the
/// difference in the same transaction.
///
/// Each path finds its kind's indexes (``maintainedIndexes(ofKind:)``) and, when there are some,
/// computes the changes (``indexChanges(in:of:changedKey:old:new:)``), which throws a unique
/// violation, then writes the record, then applies them (``apply(_:)``). A kind without indexes
/// costs one lookup of its declaration.
extension WriteTransaction {
    /// The indexes the writes of `kind` keep: those declared and built.
    func maintainedIndexes(ofKind kind: String) throws -> [BuiltIndex] {
        let declared = try indexes(ofKind: kind)
        guard !declared.isEmpty else { return [] }
        if let resolved = indexState.resolved[kind], resolved.declared == declared { return resolved.built }
        // The declaration decides (a unique flag the directory lacks is enforced); an index not
        // built yet is not kept (its build will read the record).
        let built = try declared.compactMap { index in
            try builtIndex(index, ofKind: kind).map { BuiltIndex(kind: kind, index: index, number: $0.number) }
        }
        indexState.resolved[kind] = (declared, built)
        return built
    }

    /// The changes a write of `ref` makes to `built`, its kind's indexes, checked against the
    /// unique ones.
    /// - Parameters:
    ///   - changedKey: the one top-level key written; nil when the whole record is.
    ///   - old: the record's top-level values before (nil: no record before).
    ///   - new: its top-level values after (nil: no record after).
    /// - Returns: nil when no index changes.
    /// - Throws: ``KeyValueCodingError/Code/uniqueViolation`` naming the other record.
    func indexChanges(
        in built: [BuiltIndex], of ref: RecordRef, changedKey: String?,
        old: ((String) throws -> Value?)?, new: ((String) throws -> Value?)?
    ) throws -> IndexChanges? {
        var changes = IndexChanges(ref: ref)
        for index in built where changedKey == nil || index.index.keyPaths.contains(where: { $0.firstKey == changedKey }) {
            let before = try old.map { try IndexEntries(index.index, top: $0) }
            let after = try new.map { try IndexEntries(index.index, top: $0) }
            if before != after { changes.indexes.append((index, before, after)) }
        }
        guard !changes.indexes.isEmpty else { return nil }
        try checkUniqueness(changes)
        return changes
    }

    /// Writes `changes` (the record is written).
    func apply(_ changes: IndexChanges?) throws {
        guard let changes else { return }
        let writer = try indexWriter()
        for (built, old, new) in changes.indexes {
            let before = Self.stored(old), after = Self.stored(new)
            for (tuple, entry) in before where after[tuple] == nil {
                try writer.remove(prefix: built.prefix, tuple: tuple, isCut: entry.isCut, id: changes.ref.id)
            }
            for (tuple, entry) in after where before[tuple] != entry {
                try writer.add(prefix: built.prefix, tuple: tuple, isCut: entry.isCut, id: changes.ref.id, isElement: entry.isElement)
            }
        }
    }

    /// The writer of the `indexes` database (which a store opened for writing has).
    func indexWriter() throws -> IndexWriter {
        guard let db = databases.indexes else {
            throw StoreError(.storage, "the store has no indexes database", path: store.path)
        }
        return IndexWriter(transaction: transaction, db: db)
    }

    /// The top-level values of `record`, the stored encoding of `ref`.
    func topValues(in record: UnsafeRawBufferPointer, of ref: RecordRef) -> (String) throws -> Value? {
        { key in try self.storedValue(forKey: key, in: record, of: ref) }
    }

    /// Throws when a tuple the changes add to a unique index is another record's.
    private func checkUniqueness(_ changes: IndexChanges) throws {
        for (built, old, new) in changes.indexes where built.index.isUnique {
            guard let new else { continue }
            for (tuple, origin) in new.tuples where origin.checksUniqueness && old?.tuples[tuple] == nil {
                try checkUnique(tuple, in: built, for: changes.ref)
            }
        }
    }

    /// Throws when a record other than `ref` holds `tuple` (uncut) in unique index `built`.
    func checkUnique(_ tuple: [UInt8], in built: BuiltIndex, for ref: RecordRef) throws {
        let others = try indexWriter().others(prefix: built.prefix, tuple: tuple, id: ref.id)
        if let other = others.exact.first {
            throw KeyValueCodingError.uniqueViolation(ref, other: other, index: built.index)
        }
        for other in others.possible {
            let otherRef = try RecordRef(kind: ref.kind, id: other)
            let holds = try withRecordBytes(otherRef) { bytes in
                try bytes.map { try IndexEntries(built.index, top: topValues(in: $0, of: otherRef)).tuples[tuple] != nil } ?? false
            }
            if holds { throw KeyValueCodingError.uniqueViolation(ref, other: other, index: built.index) }
        }
    }

    /// Entries as keys hold them: by cut tuple.
    static func stored(_ entries: IndexEntries?) -> [[UInt8]: StoredEntry] {
        var stored: [[UInt8]: StoredEntry] = [:]
        for (tuple, origin) in entries?.tuples ?? [:] {
            let (cut, isCut) = IndexEntryLayout.cut(tuple)
            let known = stored[cut]
            stored[cut] = StoredEntry(isCut: isCut || (known?.isCut ?? false), isElement: origin.isElement || (known?.isElement ?? false))
        }
        return stored
    }
}

/// One record's entry as a key holds it: whether its tuple was cut, and comes from an element.
struct StoredEntry: Equatable {
    var isCut: Bool
    var isElement: Bool
}
