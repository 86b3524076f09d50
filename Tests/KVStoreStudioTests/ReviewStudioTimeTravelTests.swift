import Foundation
import KVStore
@testable import KVStoreStudio
import Testing
import TestSupport

/// Review: time travel against a replay of the journal, over random histories — nested key
/// paths, stored nulls, array changes, settings through references, deletions and re-insertions,
/// several changes per commit.
@Suite(.tags(.network), .skippedByTag)
struct ReviewStudioTimeTravelTests {
    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func randomHistoriesMatchAReplay(seed: UInt64) async throws {
        try await StudioFixture.with { fixture in
            var random = SeededRandom(seed)
            for _ in 0..<30 {
                let steps = (0..<Int.random(in: 1...3, using: &random)).map { _ in Self.step(&random) }
                try? await fixture.store.write { txn in for step in steps { try step(txn) } }
            }
            let last = try await fixture.store.read { try $0.lastSequence() }
            var options = Store.Options()
            options.durability = .noSync
            for sequence in 0...last {
                let replay = try Store(path: fixture.directory.path("replay-\(sequence)"), options: options)
                try fixture.store.replayJournal(into: replay, until: .sequence(sequence))
                let expected = try await replay.read { try $0.records(ofKind: "r", from: nil, to: nil) }
                let page = try await fixture.get("/api/records", ["kind": "r", "asOf": "\(sequence)", "limit": "1000"])
                let rows = page.body["rows"]?.rows ?? []
                #expect(rows.map(\.id) == expected.map(\.ref.id), "seed \(seed) as of \(sequence)")
                for (row, record) in zip(rows, expected) where row.values != record.values {
                    Issue.record("seed \(seed): r/\(row.id) as of \(sequence): \(row.values) ≠ replay \(record.values)")
                }
            }
        }
    }

    /// One random change of one of four records `r/0`…`r/3`; it may fail (a missing
    /// intermediate, no such record), which aborts its commit.
    static func step(_ random: inout SeededRandom) -> @Sendable (WriteTransaction) throws -> Void {
        let target = ref("r/\(Int.random(in: 0..<4, using: &random))")
        let value = Self.value(&random)
        let key = ["a", "d", "n", "list"].randomElement(using: &random)!
        let nested = ["d.x", "d.e.y", "d.e", "d.n", "link.a"].randomElement(using: &random)!
        let index = Int.random(in: 0..<3, using: &random)
        switch Int.random(in: 0..<10, using: &random) {
        case 0:
            return { txn in
                try txn.insert([
                    "a": value, "d": .dictionary(["x": 1, "e": .dictionary(["y": "z"]), "n": .null]),
                    "list": .array([1, 2, 3]), "link": .reference(ref("r/\(index)")), "n": .null,
                ], as: target)
            }
        case 1: return { try $0.delete(target) }
        case 2, 3: return { try $0.setValue(value, forKeyPath: key, of: target) }
        case 4, 5: return { try $0.setValue(value, forKeyPath: nested, of: target) }
        case 6: return { try $0.removeValue(forKeyPath: Bool.random() ? key : nested, of: target) }
        case 7: return { try $0.mutableArray(forKey: "list", of: target).insert(value, at: index) }
        case 8: return { try $0.mutableArray(forKey: "list", of: target).remove(at: index) }
        default: return { try $0.mutableArray(forKey: "list", of: target).replace(at: [index], with: [value]) }
        }
    }

    static func value(_ random: inout SeededRandom) -> Value {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: .null
        case 1: .int(Int64.random(in: 0..<100, using: &random))
        case 2: .string("s\(Int.random(in: 0..<9, using: &random))")
        case 3: .dictionary(["x": .int(Int64.random(in: 0..<9, using: &random)), "e": .dictionary(["y": .null])])
        case 4: .array([.int(7), .null])
        default: .double(1.0)
        }
    }
}
