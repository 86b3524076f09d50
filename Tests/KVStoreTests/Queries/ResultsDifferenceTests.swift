import Testing
@testable import KVStore

/// The difference between two result lists: applying it to the old list, as a collection view
/// does, gives the new one; moves are as few as can be.
@Suite struct ResultsDifferenceTests {
    /// Applies a difference the way UIKit's batch updates do: removals (deletes, move sources) by
    /// old position, then insertions (inserts, move targets) by new position.
    func apply(_ difference: ResultsDifference, to old: [String], new: [String]) -> [String] {
        let removed = Set(difference.deleted + difference.moved.map(\.from))
        var result = old.indices.filter { !removed.contains($0) }.map { old[$0] }
        let placed = difference.inserted.map { ($0, new[$0]) } + difference.moved.map { ($0.to, old[$0.from]) }
        for (position, id) in placed.sorted(by: { $0.0 < $1.0 }) { result.insert(id, at: position) }
        return result
    }

    @Test func nothingChangedIsEmpty() {
        #expect(ResultsDifference(from: ["a", "b"], to: ["a", "b"], changed: []).isEmpty)
    }

    @Test func insertsDeletesAndUpdatesUsePositionsOfTheirOwnList() {
        let d = ResultsDifference(from: ["a", "b", "c"], to: ["b", "x", "c"], changed: ["c", "a"])
        #expect(d.deleted == [0])
        #expect(d.inserted == [1])
        #expect(d.updated == [2])   // "c", at its old position; "a" is deleted, not updated
        #expect(d.moved.isEmpty)
    }

    @Test func oneRowMovingToTheTopIsOneMove() {
        let d = ResultsDifference(from: ["a", "b", "c", "d"], to: ["d", "a", "b", "c"], changed: ["d"])
        #expect(d.moved == [.init(from: 3, to: 0)])
        #expect(d.updated.isEmpty && d.deleted.isEmpty && d.inserted.isEmpty)
    }

    @Test func aReversalKeepsOneRowInPlace() {
        let old = ["a", "b", "c", "d", "e"]
        let d = ResultsDifference(from: old, to: old.reversed(), changed: [])
        #expect(d.moved.count == 4)
    }

    @Test(arguments: 0..<300)
    func applyingTheDifferenceGivesTheNewList(seed: Int) {
        var rng = CodecRandom(seed: UInt64(seed))
        let universe = (0..<12).map { "r\($0)" }
        let old = universe.filter { _ in rng.next() % 3 != 0 }.shuffled(using: &rng)
        let new = universe.filter { _ in rng.next() % 3 != 0 }.shuffled(using: &rng)
        let changed = Set(universe.filter { _ in rng.next() % 2 == 0 })
        let d = ResultsDifference(from: old, to: new, changed: changed)
        #expect(apply(d, to: old, new: new) == new)
        // Minimal moves: the rows that stay are a longest run kept in order.
        let common = old.filter { new.contains($0) }.map { new.firstIndex(of: $0)! }
        #expect(common.count - d.moved.count == longestIncreasing(common))
        for position in d.updated { #expect(changed.contains(old[position]) && new.contains(old[position])) }
    }

    /// The length of a longest strictly increasing subsequence, the O(n²) way.
    func longestIncreasing(_ values: [Int]) -> Int {
        var best = [Int](repeating: 1, count: values.count)
        for i in values.indices { for j in 0..<i where values[j] < values[i] { best[i] = max(best[i], best[j] + 1) } }
        return best.max() ?? 0
    }
}
