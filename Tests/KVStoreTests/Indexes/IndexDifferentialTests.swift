import Foundation
import PropertyBased
import Testing
import TestSupport
@testable import KVStore

/// Random records, written through random write paths, and random conditions: the records an
/// index range gives (its unknown bucket added, re-checking what the entries say to re-check)
/// are exactly those a scan evaluating the predicate finds.
@Suite struct IndexDifferentialTests {
    static let indexes = [indexOn("v"), indexOn("v", folded: true), indexOn("a.b")]

    /// The predicate a condition stands for, on `path`.
    static func predicate(_ condition: IndexKeyRange.Condition, on path: String, folded: Bool) -> KeyPathPredicate {
        let (op, right) = IndexKeyRangeTests.comparison(condition)
        let keyPath = KeyPathExpression.keyPath(try! KeyValuePath(path))
        return .comparison(PredicateComparison(keyPath, op, .constant(right), options: folded ? [.caseInsensitive, .diacriticInsensitive] : []))
    }

    static func randomRecord(_ generator: inout IndexValueGenerator) -> [String: Value] {
        var record: [String: Value] = [:]
        if generator.int(6) > 0 { record["v"] = generator.int(4) == 0 ? .array((0 ..< generator.int(3)).map { _ in generator.scalar() }) : generator.scalar() }
        switch generator.int(4) {
        case 0: record["a"] = .reference(ref("item/r\(generator.int(5))"))
        case 1: record["a"] = ["b": generator.scalar()]
        case 2: record["a"] = [["b": generator.scalar()], ["b": generator.scalar()]]
        default: break
        }
        return record.filter { !$0.value.isNull }
    }

    @Test func indexRangesFindWhatAScanFinds() async throws {
        await propertyCheck(count: 40, input: Gen.uint64()) { seed in
            do { try Self.check(seed) } catch { Issue.record("seed \(seed): \(error)") }
        }
    }

    static func check(_ seed: UInt64) throws {
            var generator = IndexValueGenerator(seed)
            let fixture = try indexedStore(Self.indexes)
            let store = fixture.store
            try store.write { txn in
                for n in 0 ..< 30 { try txn.insert(Self.randomRecord(&generator), as: ref("item/r\(n)")) }
            }
            // Changes through the other write paths.
            try store.write { txn in
                for _ in 0 ..< 15 {
                    let target = ref("item/r\(generator.int(30))")
                    guard try txn.contains(target) else { continue }
                    switch generator.int(5) {
                    case 0: try txn.setValue(generator.scalar().nonNull, forKey: "v", of: target)
                    case 1: try txn.delete(target)
                    case 2 where (try txn.value(forKey: "a", of: target))?.dictionaryValue != nil:
                        try txn.setValue(generator.scalar().nonNull, forKeyPath: "a.b", of: target)
                    case 3 where (try txn.value(forKey: "v", of: target))?.arrayValue != nil:
                        try txn.mutableArray(forKey: "v", of: target).append(generator.scalar())
                    default: try txn.removeValue(forKey: "v", of: target)
                    }
                }
            }
            for _ in 0 ..< 12 {
                let index = Self.indexes[generator.int(Self.indexes.count)]
                let condition = generator.int(8) == 0 ? .missing : IndexKeyRangeTests.condition(&generator, long: false)
                // `== nil` is written `.missing` (an `==` with null matches nothing, as in `IN`).
                guard condition != .equal(.null), let range = IndexKeyRange(then: condition, folded: index.isFolded) else { continue }
                let predicate = Self.predicate(condition, on: index.keyPaths[0].description, folded: index.isFolded)
                let (scanned, indexed) = try store.read { txn in
                    let all = try txn.refs(ofKind: "item")
                    let scanned = try Set(all.filter { try txn.evaluate(predicate, on: $0) }.map(\.id))
                    let built = try #require(try txn.builtIndex(index, ofKind: "item"))
                    let found = try txn.indexedIDs(of: built, in: range), unknown = try txn.indexedIDs(of: built, in: .unknownBucket)
                    let sure = Set(found.ids).subtracting(found.needsRecheck)
                    let rechecked = try found.needsRecheck.union(unknown.ids).filter { try txn.evaluate(predicate, on: ref("item/\($0)")) }
                    return (scanned, sure.union(rechecked))
                }
                #expect(indexed == scanned, "seed \(seed): \(predicate) on index \(index)")
            }
    }
}

extension Value {
    /// The value, or a string for null (which no record holds at its top level).
    fileprivate var nonNull: Value { isNull ? "was null" : self }
}
