import LMDB

extension IndexScan {
    /// Calls `body` with the ids of `range`'s entries from the last tuple to the first, the
    /// records of one tuple in ascending id order (a descending sort's ties), until it returns
    /// false. Returns whether `body` never stopped.
    func forEachIDBackward(in range: IndexKeyRange, _ transaction: ReadTransaction, _ body: (String) throws -> Bool) throws -> Bool {
        guard let db = transaction.databases.indexes else { return true }
        let (lower, upper) = range.keys(withPrefix: built.prefix)
        let prefixLength = built.prefix.count
        var group: [String] = [], groupTuple: [UInt8]?
        func flush() throws -> Bool {
            defer { group.removeAll() }
            for id in group.reversed() where try !body(id) { return false }
            return true
        }
        let finished: Bool = try transaction.transaction.withCursor(on: db) { cursor in
            var entry = try upper.map { try cursor.seek(atOrAfter: $0) == nil ? cursor.last() : cursor.previous() } ?? cursor.last()
            // (The index's statistics, keyed by its number alone, end the walk: no range holds them.)
            while let (key, value) = entry, !key.lexicographicallyPrecedes(lower), key.count > prefixLength {
                guard let stored = IndexEntryLayout.decode(key: key, value: value, prefixLength: prefixLength) else {
                    throw undecodableEntry(in: transaction)
                }
                let tuple = Array(key[prefixLength ..< prefixLength + stored.tupleLength])
                if tuple != groupTuple {
                    guard try flush() else { return false }
                    groupTuple = tuple
                }
                // Backward: a key's items (ascending) go in reversed, so the group reversed is ascending.
                group.append(contentsOf: stored.items.reversed().map(\.id))
                entry = try cursor.previous()
            }
            return true
        }
        return try finished && flush()
    }
}
