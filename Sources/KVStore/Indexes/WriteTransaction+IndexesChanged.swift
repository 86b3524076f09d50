import LMDB

/// Building and dropping indexes when a kind's declared indexes change.
extension WriteTransaction {
    /// Brings the indexes built for `kind` in line with its declaration changing from `old` to
    /// `new`, in this transaction: an index in `new` and not in `old` (or not built, or whose
    /// unique flag changed) is built over the kind's records — a unique one refusing the first
    /// record that repeats another's values —, and one in `old` and not in `new` is dropped with
    /// every entry. Call it in the write that stores the new declaration.
    ///
    /// An index is known by its name (its key paths) and whether it is folded.
    /// - Throws: ``KeyValueCodingError/Code/uniqueViolation`` naming both records (nothing of the
    ///   transaction may commit then), ``KeyValueCodingError/Code/invalidKeyPath`` when `new`
    ///   declares one index twice.
    func indexesChanged(ofKind kind: String, from old: [KindIndex], to new: [KindIndex]) throws {
        defer { indexState.resolved[kind] = nil }
        for (offset, index) in new.enumerated() where new[..<offset].contains(where: { Self.sameIndex($0, index) }) {
            throw KeyValueCodingError.duplicateIndex(index, kind: kind)
        }
        for index in old where !new.contains(where: { Self.sameIndex($0, index) }) {
            try dropIndex(index, ofKind: kind)
        }
        for index in new {
            let built = try builtIndex(index, ofKind: kind)
            if old.contains(index), built?.index == index { continue }
            try buildIndex(index, ofKind: kind)
        }
    }

    /// Whether two declarations name one index (the unique flag aside): the same name — the key
    /// paths, as the directory and the `kvstore` tool write them — and both folded or both not.
    static func sameIndex(_ a: KindIndex, _ b: KindIndex) -> Bool {
        a.name == b.name && a.isFolded == b.isFolded
    }

    /// Builds `index` of `kind` afresh: a new number, then an entry for each record.
    private func buildIndex(_ index: KindIndex, ofKind kind: String) throws {
        try dropIndex(index, ofKind: kind)
        let writer = try indexWriter()
        let number = try (transaction.withValue(forKey: IndexDirectory.counterKey, in: writer.db) { value in
            value.flatMap { $0.count == 4 ? $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : nil } ?? 0
        }) + 1
        guard number < IndexPrefixCounts.areaNumber else {
            throw StoreError(.storage, "the store has given every index number there is: index \(kind).\(index.name) cannot be built", path: store.path)
        }
        try raiseFormat(to: StoreLayout.indexPrefixCountsFormatVersion)
        try transaction.put(IndexDirectory.counterKey, IndexDirectory.prefix(number), in: writer.db)
        try transaction.put(IndexDirectory.key(kind: kind, index: index), IndexDirectory.value(number: number, index: index), in: writer.db)
        let built = BuiltIndex(kind: kind, index: index, number: number)
        var pending = 0
        try transaction.scan(databases.records, prefix: StoreLayout.kindPrefix(kind)) { key, record in
            guard let ref = StoreLayout.ref(fromKey: key) else { return true }
            let entries = try IndexEntries(index, top: topValues(in: record, of: ref))
            if index.isUnique {
                for tuple in entries.tuples where tuple.origin.checksUniqueness { try checkUnique(tuple.bytes, in: built, for: ref) }
            }
            noteStatistics(of: built, removing: nil, adding: entries)
            for (tuple, entry) in Self.stored(entries) {
                try writer.add(prefix: built.prefix, tuple: tuple, isCut: entry.isCut, id: ref.id, isElement: entry.isElement)
            }
            pending += 1
            if pending == 1000, let progress = indexState.buildProgress {
                progress(pending)
                pending = 0
            }
            return true
        }
        if pending > 0 { indexState.buildProgress?(pending) }
    }

    /// Drops `index` of `kind` (the one built under its name), entries and all; nothing when it
    /// is not built.
    private func dropIndex(_ index: KindIndex, ofKind kind: String) throws {
        let writer = try indexWriter()
        let key = IndexDirectory.key(kind: kind, index: index)
        let number = try transaction.withValue(forKey: key, in: writer.db) { value in
            value.flatMap { $0.count >= 4 ? $0.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : nil }
        }
        guard let number else { return }
        try transaction.delete(key, in: writer.db)
        indexState.statistics[number] = nil
        indexState.prefixCounts[number] = nil
        if number > 0 && number < IndexPrefixCounts.areaNumber {
            try writer.removeAll(prefix: IndexDirectory.prefix(number))
            try writer.removeAll(prefix: IndexPrefixCounts.prefix(of: number))
        }
    }
}
