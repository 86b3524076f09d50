import LMDB

/// Reading the indexes: which are declared and built, and their entries.
extension ReadTransaction {
    /// The indexes the store's kind catalog declares for `kind`, which every write keeps.
    func indexes(ofKind kind: String) throws -> [KindIndex] {
        try kindCatalog().kind(named: kind)?.indexes ?? []
    }

    /// `index` of `kind` as built in the store; nil when it is not built (or the directory holds
    /// another declaration under its name).
    func builtIndex(_ index: KindIndex, ofKind kind: String) throws -> BuiltIndex? {
        guard let db = databases.indexes else { return nil }
        let key = IndexDirectory.key(kind: kind, index: index)
        let built = try transaction.withValue(forKey: key, in: db) { value in
            value.map { IndexDirectory.decode(key: key, value: $0, declared: index, kind: kind) } ?? nil
        }
        guard let built, built.index.keyPaths == index.keyPaths else { return nil }
        return built
    }

    /// The indexes built in the store (of `kind` only, when given), in the directory's order: by
    /// kind, then the folded ones before the others, each by name. A malformed directory entry is left out
    /// (`verify` reports it).
    func builtIndexes(ofKind kind: String? = nil) throws -> [BuiltIndex] {
        guard let db = databases.indexes else { return [] }
        var found: [BuiltIndex] = []
        let prefix = kind.map(IndexDirectory.kindPrefix) ?? IndexDirectory.counterKey
        try transaction.scan(db, prefix: prefix) { key, value in
            if key.count > IndexDirectory.counterKey.count, let built = IndexDirectory.decode(key: key, value: value) {
                found.append(built)
            }
            return true
        }
        return found
    }

    /// Calls `body` with each entry of `built` whose tuple is in `range`, in key order (tuple,
    /// then id), until it returns false. An entry that does not decode is given as nil `stored`;
    /// the index's ``IndexStatistics`` are not an entry.
    func forEachIndexEntry(
        of built: BuiltIndex, in range: IndexKeyRange = .all,
        _ body: (_ key: UnsafeRawBufferPointer, _ stored: IndexEntryLayout.Stored?) throws -> Bool
    ) throws {
        try forEachIndexEntryView(of: built, in: range) { key, view in try body(key, view?.stored) }
    }

    /// ``forEachIndexEntry(of:in:_:)`` with each entry read in place (``IndexEntryLayout/View``),
    /// nil when it does not decode: what a query's index scan reads.
    func forEachIndexEntryView(
        of built: BuiltIndex, in range: IndexKeyRange,
        _ body: (_ key: UnsafeRawBufferPointer, _ view: IndexEntryLayout.View?) throws -> Bool
    ) throws {
        guard let db = databases.indexes else { return }
        let (lower, upper) = range.keys(withPrefix: built.prefix)
        try transaction.scan(db, from: lower, to: upper) { key, value in
            // The index's number alone is its statistics' key, not an entry's.
            guard key.count > built.prefix.count else { return true }
            return try body(key, IndexEntryLayout.View(key: key, value: value, prefixLength: built.prefix.count))
        }
    }

    /// The records of `built` whose tuple is in `range` (each once, in the order of its first
    /// entry), and whether any must be re-checked against the condition (an inexact entry, or one
    /// in the range's re-check prefix). A planner's building block, and the tests'.
    func indexedIDs(of built: BuiltIndex, in range: IndexKeyRange) throws -> (ids: [String], needsRecheck: Set<String>) {
        var ids: [String] = [], seen = Set<String>(), recheck = Set<String>()
        let prefixLength = built.prefix.count
        try forEachIndexEntry(of: built, in: range) { key, stored in
            guard let stored else { return true }
            let tuple = UnsafeRawBufferPointer(rebasing: key[prefixLength ..< prefixLength + stored.tupleLength])
            for item in stored.items {
                if seen.insert(item.id).inserted { ids.append(item.id) }
                if range.needsRecheck(tuple, flags: stored.flags) { recheck.insert(item.id) }
            }
            return true
        }
        return (ids, recheck)
    }
}
