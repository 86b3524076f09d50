import LMDB

/// Keeping each index's ``IndexStatistics``: every change of a record's entries notes the change
/// of its irregular entries (nothing for a record without any), and the transaction saves each
/// index's changed counts once, when it finishes — a write of regular entries stores nothing more.
extension WriteTransaction {
    /// Notes the change of statistics that `changes` make.
    func noteStatistics(of changes: IndexChanges) {
        for (built, old, new) in changes.indexes { noteStatistics(of: built, removing: old, adding: new) }
    }

    /// Notes a record's entries in `built` going from `old` to `new` (nil: none), and the change
    /// of its prefix counts (``notePrefixCounts(of:removing:adding:)``).
    func noteStatistics(of built: BuiltIndex, removing old: IndexEntries?, adding new: IndexEntries?) {
        notePrefixCounts(of: built, removing: old, adding: new)
        guard built.countsIrregularEntries else { return }
        let removed = old.flatMap { IndexStatistics(irregularEntriesOf: $0, in: built.index) }
        let added = new.flatMap { IndexStatistics(irregularEntriesOf: $0, in: built.index) }
        guard removed != nil || added != nil else { return }
        var change = indexState.statistics[built.number] ?? IndexStatistics(keyPaths: built.index.keyPaths.count)
        if let removed { change.add(removed, sign: -1) }
        if let added { change.add(added) }
        indexState.statistics[built.number] = change
    }

    /// Saves the noted changes: each index's counts, or no record when they are all 0.
    func saveIndexStatistics() throws {
        try savePrefixCounts()
        guard !indexState.statistics.isEmpty, let db = databases.indexes else { return }
        for (number, change) in indexState.statistics where !change.isZero {
            let key = IndexStatistics.key(IndexDirectory.prefix(number))
            // Counts that do not decode start again from the change (`verify` reports them).
            var counts = try storedStatistics(key: key, keyPaths: change.unordered.count) ?? IndexStatistics(keyPaths: change.unordered.count)
            counts.add(change)
            if counts.isZero {
                try transaction.delete(key, in: db)
            } else {
                try transaction.put(key, counts.encoded, in: db)
            }
        }
        indexState.statistics = [:]
    }
}

extension ReadTransaction {
    /// The counts of `built`'s irregular entries, this transaction's writes included; nil when the
    /// store does not count them (an index built before they were kept) or they do not decode
    /// (`verify` reports it).
    func indexStatistics(of built: BuiltIndex) throws -> IndexStatistics? {
        guard built.countsIrregularEntries else { return nil }
        guard var counts = try storedStatistics(key: IndexStatistics.key(built.prefix), keyPaths: built.index.keyPaths.count) else { return nil }
        if let change = (self as? WriteTransaction)?.indexState.statistics[built.number] { counts.add(change) }
        return counts
    }

    /// The statistics stored under `key` for an index on `keyPaths` key paths: zero counts when
    /// none are; nil when they do not decode.
    func storedStatistics(key: [UInt8], keyPaths: Int) throws -> IndexStatistics? {
        guard let db = databases.indexes else { return IndexStatistics(keyPaths: keyPaths) }
        return try transaction.withValue(forKey: key, in: db) { value in
            value.map { IndexStatistics(decoding: $0, keyPaths: keyPaths) } ?? IndexStatistics(keyPaths: keyPaths)
        }
    }
}
