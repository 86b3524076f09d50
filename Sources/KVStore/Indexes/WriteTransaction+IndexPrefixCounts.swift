import LMDB

/// Keeping each compound index's ``IndexPrefixCounts``: every change of a record's entries notes
/// the change of the prefixes it counts under (nothing when they stay), and the transaction saves
/// each changed count once, when it finishes.
extension WriteTransaction {
    /// Notes a record's entries in `built` going from `old` to `new` (nil: none).
    func notePrefixCounts(of built: BuiltIndex, removing old: IndexEntries?, adding new: IndexEntries?) {
        guard built.countsPrefixes, built.index.keyPaths.count > 1 else { return }
        // The common change leaves the leading key paths alone (`read` set, `published` moved).
        if let old, let new, old.leading == new.leading { return }
        var changes = indexState.prefixCounts[built.number] ?? [:]
        if let old { IndexPrefixCounts.forEachPrefix(of: old) { changes[$0, default: 0] -= 1 } }
        if let new { IndexPrefixCounts.forEachPrefix(of: new) { changes[$0, default: 0] += 1 } }
        indexState.prefixCounts[built.number] = changes
    }

    /// Saves the noted changes: each count changed, its row removed when it drops to 0.
    func savePrefixCounts() throws {
        guard !indexState.prefixCounts.isEmpty, let db = databases.indexes else { return }
        for (number, changes) in indexState.prefixCounts {
            for (prefix, change) in changes where change != 0 {
                let key = IndexPrefixCounts.key(number: number, prefix: prefix)
                // A count that does not decode starts again from the change (`verify` reports it).
                let count = try storedPrefixCount(key: key) + change
                if count <= 0 {
                    try transaction.delete(key, in: db)
                } else {
                    try transaction.put(key, IndexPrefixCounts.encoded(count), in: db)
                }
            }
        }
        indexState.prefixCounts = [:]
    }
}

extension ReadTransaction {
    /// The number of records of `built` whose tuples start with `prefix` (encoded values of its
    /// first key paths, fewer than all), this transaction's writes included; nil when the store
    /// does not count them (an index built before, or a prefix too long to be counted).
    func prefixCount(of built: BuiltIndex, prefix: [UInt8]) throws -> Int? {
        guard built.countsPrefixes, !prefix.isEmpty, prefix.count <= IndexKeyEncoding.maximumTupleLength else { return nil }
        let count = try storedPrefixCount(key: IndexPrefixCounts.key(number: built.number, prefix: prefix))
        return count + ((self as? WriteTransaction)?.indexState.prefixCounts[built.number]?[prefix] ?? 0)
    }

    /// The count stored under `key`: 0 when none is, or when it does not decode.
    func storedPrefixCount(key: [UInt8]) throws -> Int {
        guard let db = databases.indexes else { return 0 }
        return try transaction.withValue(forKey: key, in: db) { value in value.flatMap(IndexPrefixCounts.decode) ?? 0 }
    }
}
