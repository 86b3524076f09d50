import LMDB

extension IndexScan {
    /// Calls `body` with the ids of `range`'s entries from the last tuple to the first, the
    /// records of one tuple in ascending id order (a descending sort's ties), until it returns
    /// false. Returns whether `body` never stopped. An id is given as its UTF-8 bytes, valid
    /// during the call (copied from the entry: `body` may write).
    ///
    /// First, up to `limit` records are passed over whole tuples at a time, reading their entries
    /// in place and nothing else (`body` is not called, so nothing writes and the entries stay
    /// where they are); `passed` is told how many, before `body` is first called.
    func forEachIDBackward(
        in range: IndexKeyRange, _ transaction: ReadTransaction, passingOver limit: Int = 0, _ passed: (Int) -> Void = { _ in },
        _ body: (UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Bool {
        guard let db = transaction.databases.indexes else { return true }
        let (lower, upper) = range.keys(withPrefix: built.prefix)
        let prefixLength = built.prefix.count
        // The tuple's ids so far, and the entry starting the next tuple: copied before `body` runs.
        var (group, next) = (TupleIDs(), TupleIDs())
        let finished: Bool = try lower.withUnsafeBytes { lower in try transaction.transaction.withCursor(on: db) { cursor in
            func entryInRange(_ entry: Cursor.Entry?) throws -> IndexEntryLayout.View? {
                // (The index's statistics, keyed by its number alone, end the walk: no range holds them.)
                guard let (key, value) = entry, RecordCodec.compare(key, lower) >= 0, key.count > prefixLength else { return nil }
                guard let view = IndexEntryLayout.View(key: key, value: value, prefixLength: prefixLength) else {
                    throw undecodableEntry(in: transaction)
                }
                return view
            }
            var entry = try upper.map { try cursor.seek(atOrAfter: $0) == nil ? cursor.last() : cursor.previous() } ?? cursor.last()
            if limit > 0 {
                entry = try passOver(limit, from: entry, cursor, entryInRange, passed)
            }
            while let view = try entryInRange(entry) {
                if !group.isEmpty && group.tuple.withUnsafeBytes({ RecordCodec.compare($0, view.tuple) == 0 }) {
                    group.add(view)
                } else {
                    next.start(view)
                    guard try group.give(body) else { return false }
                    swap(&group, &next)
                }
                entry = try cursor.previous()
            }
            return true
        } }
        return try finished && group.give(body)
    }

    /// Walks backward from `entry` over whole tuples while their records fit in `limit`; tells
    /// `passed` how many it passed over, and returns the entry to go on from: the last (highest)
    /// entry of the first tuple that did not fit, or nil past the range.
    private func passOver(
        _ limit: Int, from entry: Cursor.Entry?, _ cursor: Cursor,
        _ entryInRange: (Cursor.Entry?) throws -> IndexEntryLayout.View?, _ passed: (Int) -> Void
    ) throws -> Cursor.Entry? {
        var (entry, skipped) = (entry, 0)
        // The tuple being counted: its first entry met, and its records so far.
        var current: (entry: Cursor.Entry, tuple: UnsafeRawBufferPointer, count: Int)?
        while let view = try entryInRange(entry), let found = entry {
            if let counted = current, RecordCodec.compare(counted.tuple, view.tuple) == 0 {
                current?.count += view.count
            } else {
                if let counted = current {
                    guard skipped + counted.count <= limit else { break }
                    skipped += counted.count
                }
                current = (found, view.tuple, view.count)
            }
            entry = try cursor.previous()
        }
        defer { passed(skipped) }
        guard let counted = current else { return nil }
        if try entryInRange(entry) == nil, skipped + counted.count <= limit {
            skipped += counted.count
            return nil
        }
        // Back to the highest entry of the tuple that did not fit.
        return try cursor.seek(atOrAfter: Array(counted.entry.key))
    }
}

/// The ids of the entries of one tuple met walking an index backward, copied into buffers that
/// are reused from one tuple to the next (no allocation once they have grown).
private struct TupleIDs {
    private(set) var tuple: [UInt8] = []
    /// The ids' bytes, one after the other, and where each ends.
    private var bytes: [UInt8] = []
    private var ends: [Int] = []
    /// Where each entry's ids start in `ends`, in the order the entries were met (descending).
    private var entryStarts: [Int] = []

    var isEmpty: Bool { entryStarts.isEmpty }

    /// Empties the buffers and adds `view`, the first entry of its tuple.
    mutating func start(_ view: IndexEntryLayout.View) {
        tuple.removeAll(keepingCapacity: true)
        tuple.append(contentsOf: view.tuple)
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        entryStarts.removeAll(keepingCapacity: true)
        add(view)
    }

    /// Adds an entry's ids (in its order, ascending).
    mutating func add(_ view: IndexEntryLayout.View) {
        entryStarts.append(ends.count)
        _ = view.forEachID { id, _ in
            bytes.append(contentsOf: id)
            ends.append(bytes.count)
            return true
        }
    }

    /// Gives the ids in ascending order — the entries met last first, each entry's ids in its
    /// order; false when `body` stopped.
    func give(_ body: (UnsafeRawBufferPointer) throws -> Bool) throws -> Bool {
        var entryEnd = ends.count
        for entryStart in entryStarts.reversed() {
            for index in entryStart ..< entryEnd {
                let start = index == 0 ? 0 : ends[index - 1]
                guard try bytes.withUnsafeBytes({ try body(UnsafeRawBufferPointer(rebasing: $0[start ..< ends[index]])) }) else { return false }
            }
            entryEnd = entryStart
        }
        return true
    }
}
