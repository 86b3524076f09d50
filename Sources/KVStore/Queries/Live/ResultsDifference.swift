/// The difference between two ordered lists of distinct ids, as a table or collection view applies
/// it (UIKit's batch updates, `NSFetchedResultsController`): positions of removed and reloaded
/// rows and the sources of moves in the old list; positions of added rows and the targets of moves
/// in the new one.
///
/// Moves are as few as can be: the rows that keep their relative order (a longest increasing
/// subsequence of their new positions, taken in old order) stay; every other row both lists hold
/// moves. A row that moved is reported as moved only, even when it also changed.
struct ResultsDifference: Equatable, Sendable {
    /// Positions in the old list of the ids the new one lacks, ascending.
    var deleted: [Int] = []
    /// Positions in the new list of the ids the old one lacks, ascending.
    var inserted: [Int] = []
    /// Positions in the old list of ids in both, not moved, that `changed` names, ascending.
    var updated: [Int] = []
    /// Old and new position of each id that moved, by old position.
    var moved: [Move] = []

    struct Move: Equatable, Sendable {
        var from: Int
        var to: Int
    }

    var isEmpty: Bool { deleted.isEmpty && inserted.isEmpty && updated.isEmpty && moved.isEmpty }

    /// The difference from `old` to `new` (each without repeated ids); `changed` names the ids
    /// whose record changed.
    init<ID: Hashable>(from old: [ID], to new: [ID], changed: Set<ID>) {
        var newPosition: [ID: Int] = [:]
        newPosition.reserveCapacity(new.count)
        for (position, id) in new.enumerated() { newPosition[id] = position }
        // The rows both lists hold, in old order: (old position, new position).
        var kept: [(from: Int, to: Int)] = []
        for (position, id) in old.enumerated() {
            if let target = newPosition[id] { kept.append((position, target)) } else { deleted.append(position) }
        }
        let oldIDs = Set(old)
        inserted = new.indices.filter { !oldIDs.contains(new[$0]) }
        let staying = Self.longestIncreasingRun(kept.map(\.to))
        for (index, row) in kept.enumerated() {
            if staying.contains(index) {
                if changed.contains(old[row.from]) { updated.append(row.from) }
            } else {
                moved.append(Move(from: row.from, to: row.to))
            }
        }
    }

    /// The indexes into `values` of one longest strictly increasing subsequence (patience
    /// sorting, O(n log n)).
    private static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []          // tails[k]: index of the smallest tail of a run of length k + 1
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run = Set<Int>()
        var index = tails.last ?? -1
        while index >= 0 {
            run.insert(index)
            index = previous[index]
        }
        return run
    }
}
