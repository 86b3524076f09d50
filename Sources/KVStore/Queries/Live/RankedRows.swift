/// The matches of a live query in the query's order (``ResultOrder``), held in sorted chunks so
/// that one insertion or removal moves a few hundred entries, not all of them: a commit that
/// changes one of 100,000 matches updates the order in microseconds.
struct RankedRows {
    let order: ResultOrder
    /// Sorted, non-empty chunks; every entry of a chunk precedes every entry of the next.
    private var chunks: [[SortEntry]] = []
    private(set) var count = 0

    /// Chunks are split in two once they reach this size.
    private static let splitSize = 512

    /// The rows `sorted` (already in `order`).
    init(order: ResultOrder, sorted: [SortEntry]) {
        self.order = order
        count = sorted.count
        var start = 0
        while start < sorted.count {
            let end = min(start + Self.splitSize / 2, sorted.count)
            chunks.append(Array(sorted[start ..< end]))
            start = end
        }
    }

    /// Adds `entry` (not already held) at its place.
    mutating func insert(_ entry: SortEntry) {
        count += 1
        guard !chunks.isEmpty else { return chunks = [[entry]] }
        let chunk = min(chunkIndex(for: entry), chunks.count - 1)
        chunks[chunk].insert(entry, at: lowerBound(entry, in: chunks[chunk]))
        if chunks[chunk].count >= Self.splitSize {
            let upper = Array(chunks[chunk][(Self.splitSize / 2)...])
            chunks[chunk].removeLast(upper.count)
            chunks.insert(upper, at: chunk + 1)
        }
    }

    /// Removes the entry equal to `entry` (same sort values and id), if held.
    mutating func remove(_ entry: SortEntry) {
        let chunk = chunkIndex(for: entry)
        guard chunk < chunks.count else { return }
        let index = lowerBound(entry, in: chunks[chunk])
        guard index < chunks[chunk].count, chunks[chunk][index].ref.id == entry.ref.id else { return }
        chunks[chunk].remove(at: index)
        count -= 1
        if chunks[chunk].isEmpty { chunks.remove(at: chunk) }
    }

    /// The references of the rows from position `offset` on, at most `limit` of them.
    func refs(offset: Int, limit: Int?) -> [RecordRef] {
        var skip = offset
        var remaining = limit ?? .max
        var refs: [RecordRef] = []
        for chunk in chunks where remaining > 0 {
            if skip >= chunk.count {
                skip -= chunk.count
                continue
            }
            for entry in chunk[skip...].prefix(remaining) { refs.append(entry.ref) }
            remaining -= chunk.count - skip
            skip = 0
        }
        return refs
    }

    /// The first chunk whose last entry does not precede `entry` (`chunks.count` when none).
    private func chunkIndex(for entry: SortEntry) -> Int {
        var (low, high) = (0, chunks.count)
        while low < high {
            let middle = (low + high) / 2
            if order.precedes(chunks[middle][chunks[middle].count - 1], entry) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The position of the first entry of `chunk` that `entry` does not follow.
    private func lowerBound(_ entry: SortEntry, in chunk: [SortEntry]) -> Int {
        var (low, high) = (0, chunk.count)
        while low < high {
            let middle = (low + high) / 2
            if order.precedes(chunk[middle], entry) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
