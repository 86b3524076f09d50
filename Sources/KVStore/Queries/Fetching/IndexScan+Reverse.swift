import LMDB

extension IndexScan {
    /// Calls `body` with the ids of `range`'s entries from the last tuple to the first, the
    /// records of one tuple in ascending id order (a descending sort's ties), until it returns
    /// false. Returns whether `body` never stopped. An id is given as its UTF-8 bytes, valid
    /// during the call (copied from the entry: `body` may write).
    func forEachIDBackward(
        in range: IndexKeyRange, _ transaction: ReadTransaction, _ body: (UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Bool {
        guard let db = transaction.databases.indexes else { return true }
        let (lower, upper) = range.keys(withPrefix: built.prefix)
        let prefixLength = built.prefix.count
        // The tuple's ids so far, and the entry starting the next tuple: copied before `body` runs.
        var (group, next) = (TupleIDs(), TupleIDs())
        let finished: Bool = try transaction.transaction.withCursor(on: db) { cursor in
            var entry = try upper.map { try cursor.seek(atOrAfter: $0) == nil ? cursor.last() : cursor.previous() } ?? cursor.last()
            // (The index's statistics, keyed by its number alone, end the walk: no range holds them.)
            while let (key, value) = entry, !key.lexicographicallyPrecedes(lower), key.count > prefixLength {
                guard let view = IndexEntryLayout.View(key: key, value: value, prefixLength: prefixLength) else {
                    throw undecodableEntry(in: transaction)
                }
                if !group.isEmpty && group.tuple.elementsEqual(view.tuple) {
                    group.add(view)
                } else {
                    next.start(view)
                    guard try group.give(body) else { return false }
                    swap(&group, &next)
                }
                entry = try cursor.previous()
            }
            return true
        }
        return try finished && group.give(body)
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
