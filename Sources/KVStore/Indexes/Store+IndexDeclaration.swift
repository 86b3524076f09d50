/// Declaring and dropping indexes, and listing them: what `kvstore index add|drop|list` does.
///
/// A kind's indexes are part of its declaration in the store's kind catalog: declaring or
/// dropping one stores the kind's new declaration (``WriteTransaction/declare(_:)``), and that
/// write builds or drops the index (``WriteTransaction/indexesChanged(ofKind:from:to:)``).
extension Store {
    /// Declares `index` on `kind` in the catalog and builds it over the kind's records, in one
    /// write, calling `progress` with the records gone through.
    /// - Throws: ``KeyValueCodingError`` `invalidKeyPath` when the kind has the index already,
    ///   `uniqueViolation` when two records repeat a unique index's values (nothing changes).
    package func declareIndex(_ index: KindIndex, ofKind kind: String, progress: ((Int) -> Void)? = nil) throws {
        try write { txn in
            var declared = try txn.declaredKind(named: kind) ?? Kind(kind)
            let built = try txn.builtIndexes(ofKind: kind).map(\.index)
            if let existing = (declared.indexes + built).first(where: { WriteTransaction.sameIndex($0, index) }) {
                throw KeyValueCodingError(
                    code: .invalidKeyPath, message: "kind \(kind) has the index \(existing.description) already; drop it first",
                    keyPath: index.name)
            }
            declared.indexes.append(index)
            txn.indexState.buildProgress = progress
            defer { txn.indexState.buildProgress = nil }
            try txn.declare(declared)
        }
    }

    /// Drops the index of `kind` on `keyPaths` (the folded one when `folded`, the plain one when
    /// not, either when nil and there is one) from the catalog, entries and all.
    /// - Returns: the index dropped.
    /// - Throws: ``KeyValueCodingError/Code/invalidKeyPath`` when the kind has no such index.
    @discardableResult
    package func dropIndex(on keyPaths: [String], folded: Bool?, ofKind kind: String) throws -> KindIndex {
        let wanted = try KindIndex(keyPaths)
        return try write { txn in
            let declared = try txn.declaredKind(named: kind)
            let built = try txn.builtIndexes(ofKind: kind).map(\.index)
            let candidates = ((declared?.indexes ?? []) + built).filter { $0.name == wanted.name && (folded == nil || $0.isFolded == folded) }
            guard let index = candidates.first(where: { !$0.isFolded }) ?? candidates.first else {
                throw KeyValueCodingError(
                    code: .invalidKeyPath,
                    message: "kind \(kind) has no\(folded == true ? " folded" : "") index on \(wanted.name)", keyPath: wanted.name)
            }
            if var declared, declared.indexes.contains(where: { WriteTransaction.sameIndex($0, index) }) {
                declared.indexes.removeAll { WriteTransaction.sameIndex($0, index) }
                try txn.declare(declared)
            } else {
                try txn.indexesChanged(ofKind: kind, from: [index], to: [])  // built, not declared
            }
            return index
        }
    }

    /// An index as `kvstore index list` shows it.
    package struct IndexStatus: Sendable {
        package let kind: String
        package let index: KindIndex
        /// The records it has entries for.
        package let records: Int
        /// Its entries (a record has one per distinct value of a multi-entry index).
        package let entries: Int
        /// The records in its unknown bucket: a key path ran into a reference.
        package let unknown: Int
    }

    /// The indexes built in the store (of `kind` only, when given), with their sizes: by kind,
    /// then by name, a plain index before a folded one.
    package func indexStatuses(ofKind kind: String? = nil) throws -> [IndexStatus] {
        try read { txn in
            let built = try txn.builtIndexes(ofKind: kind).sorted { a, b in
                (a.kind, a.index.name, a.index.isFolded ? 1 : 0) < (b.kind, b.index.name, b.index.isFolded ? 1 : 0)
            }
            return try built.map { built in
                var records = Set<String>(), entries = 0
                try txn.forEachIndexEntry(of: built) { _, stored in
                    for item in stored?.items ?? [] {
                        records.insert(item.id)
                        entries += 1
                    }
                    return true
                }
                let unknown = try txn.indexedIDs(of: built, in: .unknownBucket).ids.count
                return IndexStatus(kind: built.kind, index: built.index, records: records.count, entries: entries, unknown: unknown)
            }
        }
    }
}
