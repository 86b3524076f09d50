/// Declaring and dropping indexes, and listing them: what `kvstore index add|drop|list` does.
///
/// Until the kind catalog stores declarations, the declarations are the kinds registered in this
/// process (``Store/register(_:)``), and ``indexesDeclared(_:ofKind:previously:progress:)`` is
/// the one place where a changed declaration builds and drops indexes.
extension Store {
    /// Builds and drops `kind`'s indexes in one write when its declared indexes change from
    /// `previously` to `indexes` (not in a store opened read-only, which writes nothing).
    func indexesDeclared(_ indexes: [KindIndex], ofKind kind: String, previously: [KindIndex], progress: ((Int) -> Void)?) throws {
        guard indexes != previously, !options.readOnly else { return }
        try write { txn in
            txn.indexState.buildProgress = progress
            defer { txn.indexState.buildProgress = nil }
            try txn.indexesChanged(ofKind: kind, from: previously, to: indexes)
        }
    }

    /// Declares `index` on `kind` and builds it over the kind's records, calling `progress` with
    /// the records gone through.
    /// - Throws: ``KeyValueCodingError`` `invalidKeyPath` when the kind has the index already,
    ///   `uniqueViolation` when two records repeat a unique index's values (nothing changes).
    package func declareIndex(_ index: KindIndex, ofKind kind: String, progress: ((Int) -> Void)? = nil) throws {
        var declared = try self.kind(named: kind) ?? Kind(kind)
        let built = try read { try $0.builtIndexes(ofKind: kind) }.map(\.index)
        if let existing = (declared.indexes + built).first(where: { WriteTransaction.sameIndex($0, index) }) {
            throw KeyValueCodingError(
                code: .invalidKeyPath, message: "kind \(kind) has the index \(existing.description) already; drop it first",
                keyPath: index.name)
        }
        declared.indexes.append(index)
        try register(declared, indexBuildProgress: progress)
    }

    /// Drops the index of `kind` on `keyPaths` (the folded one when `folded`, the plain one when
    /// not, either when nil and there is one), entries and all.
    /// - Returns: the index dropped.
    /// - Throws: ``KeyValueCodingError/Code/invalidKeyPath`` when the kind has no such index.
    @discardableResult
    package func dropIndex(on keyPaths: [String], folded: Bool?, ofKind kind: String) throws -> KindIndex {
        let wanted = try KindIndex(keyPaths)
        let registered = self.kind(named: kind)
        let built = try read { try $0.builtIndexes(ofKind: kind) }.map(\.index)
        let candidates = ((registered?.indexes ?? []) + built).filter { $0.name == wanted.name && (folded == nil || $0.isFolded == folded) }
        guard let index = candidates.first(where: { !$0.isFolded }) ?? candidates.first else {
            throw KeyValueCodingError(
                code: .invalidKeyPath,
                message: "kind \(kind) has no\(folded == true ? " folded" : "") index on \(wanted.name)", keyPath: wanted.name)
        }
        if var declared = registered, declared.indexes.contains(where: { WriteTransaction.sameIndex($0, index) }) {
            declared.indexes.removeAll { WriteTransaction.sameIndex($0, index) }
            try register(declared)
        } else {
            try indexesDeclared([], ofKind: kind, previously: [index], progress: nil)  // built, not declared here
        }
        return index
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
