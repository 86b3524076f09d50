/// A secondary index of a kind, declared with the kind (``Kind/indexes``) and kept in the store's
/// kind catalog, so every process and the `kvstore` tool maintain it.
///
/// An index orders the kind's records by the values at one key path (a value index) or several
/// (a compound index, ordered by the first, then the second, …). A key path whose value is an
/// array indexes each element (multi-entry): `tags` serves `ANY tags == "swift"`. A unique index
/// refuses a write that would give two records the same indexed values; a folded index compares
/// strings case- and diacritic-insensitively, for `[cd]` queries.
///
/// ```swift
/// var item = try Kind("item")
/// item.indexes = [
///     try KindIndex(["feed", "published"]),          // compound: a feed's items by date
///     try KindIndex(["guid"], unique: true),
///     try KindIndex(["title"], folded: true),        // title BEGINSWITH[cd] 'swift'
/// ]
/// try store.register(item)                            // builds the indexes on existing items
/// ```
public struct KindIndex: Sendable, Hashable, CustomStringConvertible {
    /// The indexed key paths, in order: one for a value index, several for a compound one.
    public let keyPaths: [KeyValuePath]
    /// Whether two records of the kind may not share the indexed values.
    public var isUnique: Bool
    /// Whether strings are indexed folded (case- and diacritic-insensitive, as `[cd]` compares).
    public var isFolded: Bool

    /// An index on `keyPaths` (at least one).
    /// - Throws: ``KeyValueCodingError/Code/invalidKeyPath`` for an empty list, a malformed key
    ///   path, or one that uses a collection operator (an index holds stored values).
    public init(_ keyPaths: [String], unique: Bool = false, folded: Bool = false) throws(KeyValueCodingError) {
        guard !keyPaths.isEmpty else {
            throw .invalidKeyPath("", problem: "an index needs at least one key path")
        }
        var parsed: [KeyValuePath] = []
        for text in keyPaths {
            let path = try KeyValuePath(text)
            for case .operator(let op) in path.components {
                throw .invalidKeyPath(text, problem: "an index key path cannot use a collection operator (\(op))")
            }
            parsed.append(path)
        }
        self.keyPaths = parsed
        self.isUnique = unique
        self.isFolded = folded
    }

    /// The index's name: its key paths joined by commas (`feed,published`), as the `kvstore` tool
    /// and `explain` write it.
    public var name: String { keyPaths.map(\.description).joined(separator: ",") }

    /// The name, with `unique` and `folded` when they apply: `guid (unique)`.
    public var description: String {
        let flags = [isUnique ? "unique" : nil, isFolded ? "folded" : nil].compactMap { $0 }
        return flags.isEmpty ? name : "\(name) (\(flags.joined(separator: ", ")))"
    }
}
