import LMDB

/// What a write transaction keeps to maintain indexes.
struct IndexWriteState {
    /// The built indexes each kind's writes keep, with the catalog and the declarations they were
    /// found for (a declaration stored in the transaction loads a new catalog).
    var resolved: [String: (catalog: KindCatalog, declared: [KindIndex], built: [BuiltIndex])] = [:]
    /// Called with the number of records an index build went through since the last call.
    var buildProgress: ((Int) -> Void)?
    /// The changes of each index's statistics, by number, saved when the transaction finishes.
    var statistics: [UInt32: IndexStatistics] = [:]
    /// The changes of each index's prefix counts (``IndexPrefixCounts``), by number then prefix,
    /// saved when the transaction finishes.
    var prefixCounts: [UInt32: [[UInt8]: Int]] = [:]
    /// Room to encode a new record's tuples in (``WriteTransaction/addEntries(of:in:top:)``).
    var tuple: [UInt8] = []
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
        let catalog = try kindCatalog()
        if catalog.isEmpty { return [] }
        // Resolved once per catalog: the catalog a write reads is read once per transaction.
        if let resolved = indexState.resolved[kind], resolved.catalog === catalog { return resolved.built }
        let declared = try catalog.kind(named: kind)?.indexes ?? []
        if let resolved = indexState.resolved[kind], resolved.declared == declared {
            indexState.resolved[kind]?.catalog = catalog
            return resolved.built
        }
        // The declaration decides (a unique flag the directory lacks is enforced); an index not
        // built yet is not kept (its build will read the record).
        let built = try declared.compactMap { index in
            try builtIndex(index, ofKind: kind).map { BuiltIndex(kind: kind, index: index, number: $0.number, countsIrregularEntries: $0.countsIrregularEntries,
                                       countsPrefixes: $0.countsPrefixes) }
        }
        indexState.resolved[kind] = (catalog, declared, built)
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
        changes.indexes.reserveCapacity(built.count)
        for index in built where changedKey == nil || index.index.keyPaths.contains(where: { $0.firstKey == changedKey }) {
            let before = try old.map { try IndexEntries(index.index, top: $0) }
            let after = try new.map { try IndexEntries(index.index, top: $0) }
            if before != after { changes.indexes.append((index, before, after)) }
        }
        guard !changes.indexes.isEmpty else { return nil }
        try checkUniqueness(changes)
        return changes
    }

    /// Writes `changes` (the record is written): a merge of each index's entries before and
    /// after, both in key order.
    func apply(_ changes: IndexChanges?) throws {
        guard let changes else { return }
        noteStatistics(of: changes)
        let writer = try indexWriter()
        let id = changes.ref.id
        for (built, old, new) in changes.indexes {
            // An insert of values none of which is cut, the common case: its tuples as they are.
            if old == nil, let new, new.tuples.allSatisfy({ $0.bytes.count <= IndexKeyEncoding.maximumTupleLength }) {
                for tuple in new.tuples {
                    try writer.add(prefix: built.prefix, tuple: tuple.bytes, isCut: false, id: id, isElement: tuple.origin.isElement)
                }
                continue
            }
            let before = Self.stored(old), after = Self.stored(new)
            var (i, j) = (0, 0)
            while i < before.count || j < after.count {
                if j == after.count || (i < before.count && before[i].tuple.lexicographicallyPrecedes(after[j].tuple)) {
                    try writer.remove(prefix: built.prefix, tuple: before[i].tuple, isCut: before[i].entry.isCut, id: id)
                    i += 1
                } else if i == before.count || after[j].tuple.lexicographicallyPrecedes(before[i].tuple) {
                    try writer.add(prefix: built.prefix, tuple: after[j].tuple, isCut: after[j].entry.isCut, id: id, isElement: after[j].entry.isElement)
                    j += 1
                } else {
                    if before[i].entry != after[j].entry {
                        try writer.add(prefix: built.prefix, tuple: after[j].tuple, isCut: after[j].entry.isCut, id: id, isElement: after[j].entry.isElement)
                    }
                    (i, j) = (i + 1, j + 1)
                }
            }
        }
    }

    /// Puts the entries of `ref`, a record just inserted, in `built`, its kind's indexes, none of
    /// them unique (a unique one is checked before the record is written, through
    /// ``indexChanges(in:of:changedKey:old:new:)``). The same entries as those and ``apply(_:)``
    /// write; a tuple of one value is encoded and put at once, without building the changes.
    func addEntries(of ref: RecordRef, in built: [BuiltIndex], top: (String) throws -> Value?) throws {
        let writer = try indexWriter()
        for index in built {
            if let value = try IndexEntries.scalarValue(index.index, top: top) {
                indexState.tuple.removeAll(keepingCapacity: true)
                // An entry the index's statistics count (``IndexStatistics``) takes the general path.
                let departure = IndexKeyEncoding.appendReportingOrder(value, folded: index.index.isFolded, to: &indexState.tuple)
                if departure.isEmpty && indexState.tuple.count <= IndexKeyEncoding.maximumTupleLength {
                    try writer.add(prefix: index.prefix, tuple: indexState.tuple, isCut: false, id: ref.id, isElement: false)
                    continue
                }
            }
            var changes = IndexChanges(ref: ref)
            changes.indexes.append((index, nil, try IndexEntries(index.index, top: top)))
            try apply(changes)
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
            for tuple in new.tuples where tuple.origin.checksUniqueness && old?.origin(of: tuple.bytes) == nil {
                try checkUnique(tuple.bytes, in: built, for: changes.ref)
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
                try bytes.map { try IndexEntries(built.index, top: topValues(in: $0, of: otherRef)).origin(of: tuple) != nil } ?? false
            }
            if holds { throw KeyValueCodingError.uniqueViolation(ref, other: other, index: built.index) }
        }
    }

    /// Entries as keys hold them, in key order: each cut tuple once (tuples cut alike merge).
    static func stored(_ entries: IndexEntries?) -> [(tuple: [UInt8], entry: StoredEntry)] {
        var stored: [(tuple: [UInt8], entry: StoredEntry)] = []
        stored.reserveCapacity(entries?.tuples.count ?? 0)
        for tuple in entries?.tuples ?? [] {
            let (cut, isCut) = IndexEntryLayout.cut(tuple.bytes)
            // Sorted full tuples give sorted cut ones, equal cuts side by side.
            if let last = stored.last, last.tuple == cut {
                stored[stored.count - 1].entry.isElement = last.entry.isElement || tuple.origin.isElement
            } else {
                stored.append((cut, StoredEntry(isCut: isCut, isElement: tuple.origin.isElement)))
            }
        }
        return stored
    }
}

/// One record's entry as a key holds it: whether its tuple was cut, and comes from an element.
struct StoredEntry: Equatable {
    var isCut: Bool
    var isElement: Bool
}
