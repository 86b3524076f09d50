import LMDB

/// Reading several ranges of an index as one ordered stream: the ranges of an `IN` list
/// (`feed IN {a, b, c}`, index `feed,published`) each come in the order of the key paths after the
/// list's, and a k-way merge of them — one cursor per range — comes in that order too, so a sorted
/// page stops after its last entry instead of reading every range whole.
extension IndexScan {
    /// One range's cursor and the entry it stands on.
    private struct Stream {
        let cursor: Cursor
        let range: (lower: [UInt8], upper: [UInt8]?)
        /// Where the part of the tuple the streams are merged by starts, in the key.
        let start: Int
        /// The current entry's tuple from `start`, and its records; nil when the range is done.
        var head: (order: [UInt8], ids: [String])?
    }

    /// Calls `body` with the ids of the ranges' entries, merged in the order of each tuple after its
    /// range's offset in `offsets` (descending when ``reverse``), until it returns false.
    /// - Returns: whether `body` never stopped.
    func forEachMergedID(in transaction: ReadTransaction, offsets: [Int], _ body: (UnsafeRawBufferPointer) throws -> Bool) throws -> Bool {
        guard let db = transaction.databases.indexes else { return true }
        var cursors: [Cursor] = []
        func withCursors(_ remaining: Int, _ work: ([Cursor]) throws -> Bool) throws -> Bool {
            guard remaining > 0 else { return try work(cursors) }
            return try transaction.transaction.withCursor(on: db) { cursor in
                cursors.append(cursor)
                return try withCursors(remaining - 1, work)
            }
        }
        return try withCursors(ranges.count) { cursors in
            var streams = try zip(cursors, zip(ranges, offsets)).map { cursor, rangeAndOffset in
                var stream = Stream(cursor: cursor, range: rangeAndOffset.0.keys(withPrefix: built.prefix),
                                    start: built.prefix.count + rangeAndOffset.1, head: nil)
                try advance(&stream, first: true, transaction)
                return stream
            }
            while true {
                var best: Int?
                for index in streams.indices {
                    guard let head = streams[index].head else { continue }
                    guard let current = best, let bestHead = streams[current].head else {
                        best = index
                        continue
                    }
                    if reverse ? bestHead.order.lexicographicallyPrecedes(head.order) : head.order.lexicographicallyPrecedes(bestHead.order) {
                        best = index
                    }
                }
                guard let best, let head = streams[best].head else { return true }
                for var id in head.ids where try !id.withUTF8({ try body(UnsafeRawBufferPointer($0)) }) { return false }
                try advance(&streams[best], first: false, transaction)
            }
        }
    }

    /// Moves `stream` to its range's next entry (its first, when `first`), backward when
    /// ``reverse``.
    private func advance(_ stream: inout Stream, first: Bool, _ transaction: ReadTransaction) throws {
        let (lower, upper) = stream.range
        let entry: Cursor.Entry?
        switch (first, reverse) {
        case (true, false): entry = try stream.cursor.seek(atOrAfter: lower)
        case (true, true): entry = try upper.map { try stream.cursor.seek(atOrAfter: $0) == nil ? stream.cursor.last() : stream.cursor.previous() } ?? stream.cursor.last()
        case (false, false): entry = try stream.cursor.next()
        case (false, true): entry = try stream.cursor.previous()
        }
        guard let (key, value) = entry, !key.lexicographicallyPrecedes(lower), upper.map({ key.lexicographicallyPrecedes($0) }) ?? true,
              key.count > built.prefix.count else {
            stream.head = nil
            return
        }
        guard let stored = IndexEntryLayout.decode(key: key, value: value, prefixLength: built.prefix.count) else {
            throw undecodableEntry(in: transaction)
        }
        let end = built.prefix.count + stored.tupleLength
        stream.head = (Array(key[min(stream.start, end) ..< end]), stored.items.map(\.id))
    }
}
