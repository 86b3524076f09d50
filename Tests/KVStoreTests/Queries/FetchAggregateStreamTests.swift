import Foundation
import Testing
import TestSupport
@testable import KVStore

/// Aggregates that need no order stream the matches as the access path gives them (no ordering,
/// no second lookup), and a count of an exact index plan reads the entries alone: the results,
/// and the errors, are those of a scan of the same records in id order.
@Suite struct FetchAggregateStreamTests {
    static func number(_ random: inout IndexValueGenerator, ints: Bool) -> Value? {
        switch random.int(ints ? 6 : 9) {
        case 0: return nil
        case 1: return .int([Int64.max, .min, .max - 3, .min + 2][random.int(4)])
        case 2, 3, 4: return .int(Int64(random.int(100)) - 30)
        case 5: return .null
        case 6: return .double(Double(random.int(1000)) / 7)
        case 7: return .string("x")
        default: return .bool(true)
        }
    }

    /// An aggregate's value, or its error's description.
    static func outcome(_ txn: ReadTransaction, _ path: String, _ query: RecordQuery) -> String {
        do { return "\(try txn.value(forKeyPath: path, matching: query).map { "\($0)" } ?? "nil")" } catch { return "error: \(error)" }
    }

    @Test("sums, averages and counts over an index are a scan's", arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func sameAsScan(seed: UInt64) throws {
        var random = IndexValueGenerator(seed)
        let t = try indexedStore([indexOn("g", "n"), indexOn("h")])
        let ints = seed <= 4
        try t.store.write { txn in
            for n in 0 ..< 60 {
                var values: [String: Value] = ["g": .int(Int64(random.int(3))), "h": .int(Int64(random.int(4)))]
                values["n"] = Self.number(&random, ints: ints)
                values["m"] = Self.number(&random, ints: true)
                if random.int(4) > 0 { values["s"] = .int(Int64(random.int(1000))) }
                if random.int(15) == 0 { values["h"] = [1, 2] }
                let id = String(format: "%03d", (n * 37) % 60)  // inserted out of id order
                try txn.insert(values.filter { !$0.value.isNull }, as: ref("item/\(id)"))
                try txn.insert(values.filter { !$0.value.isNull }, as: ref("plain/\(id)"))
            }
        }
        let predicates = ["g == 1", "g == 2 AND n > 0", "g IN {0, 2}", "h == 1", "h IN {1, 3}", "g == 0 AND n == 5", "h > 1"]
        var streamed = 0
        for text in predicates {
            for (limit, offset, sort) in [(nil, 0, []), (nil, 2, []), (5, 0, []), (nil, 0, [try KeyPathSort(parsing: "n:desc")])] as [(Int?, Int, [KeyPathSort])] {
                let query = RecordQuery(kind: "item", where: try KeyPathPredicate(text), sortedBy: sort, limit: limit, offset: offset)
                var plain = query
                plain.kind = "plain"
                try t.store.read { txn in
                    #expect(try QueryPlanner.plan(for: query, in: txn).description.hasPrefix("index"))
                    for path in ["@sum.n", "@avg.n", "@sum.m", "@avg.m", "@sum.s", "@count", "@max.n", "n"] {
                        #expect(Self.outcome(txn, path, query) == Self.outcome(txn, path, plain), "\(text) \(path) limit \(String(describing: limit)) offset \(offset)")
                    }
                    #expect(try txn.count(matching: query) == txn.count(matching: plain), "\(text)")
                    let executor = try txn.executor(for: query, statistics: QueryStatistics())
                    if try limit == nil && offset == 0 && executor.intTotal(.sum, of: "s") != nil { streamed += 1 }
                    // Exact on ints, one entry per record: straight from the entries.
                    if text.hasPrefix("g ==") { #expect(try executor.forEachExactMatch { _ in true }, "\(text)") }
                }
            }
        }
        #expect(streamed == 2 * predicates.count)  // no offset or limit: with and without a sort
    }

    @Test func anExactIndexPlanCountsItsEntriesAlone() throws {
        let t = try indexedStore([indexOn("g", "n")])
        try t.store.write { txn in
            for n in 0 ..< 30 { try txn.insert(["g": .int(Int64(n % 3)), "n": .int(Int64(n % 7))], as: ref("item/\(n)")) }
        }
        func entryCount(_ text: String) throws -> (Int?, Int, Int) {
            try t.store.read { txn in
                let query = RecordQuery(kind: "item", where: try KeyPathPredicate(text))
                let scanned = try txn.refs(ofKind: "item").filter { try txn.evaluate(query.predicate, on: $0) }.count
                return (try txn.executor(for: query, statistics: QueryStatistics()).countFromEntries(), try txn.count(matching: query), scanned)
            }
        }
        for text in ["g == 1 AND n == 2", "g == 2 AND n > 3", "g IN {0, 1} AND n < 4"] {
            let (entries, counted, scanned) = try entryCount(text)
            #expect(entries == scanned && counted == scanned, "\(text)")
        }
        // An element's entry: a record may have several, so the entries do not count it.
        try t.store.insert(["g": 1, "n": [2, 3]], as: ref("item/array"))
        let (entries, counted, scanned) = try entryCount("g == 1 AND n >= 2")
        #expect(entries == nil && counted == scanned)
    }

    @Test func anEntryListingItsRecordsCountsEach() {
        let key = IndexEntryLayout.key(prefix: [0, 0, 0, 1], tuple: [0x11], id: "a")
        let items = [IndexEntryLayout.Item(id: "a", isElement: false), IndexEntryLayout.Item(id: "ab", isElement: false)]
        let listed = IndexEntryLayout.value(key: key, prefixLength: 4, tupleLength: 1, isCut: false, items: items)
        let short = IndexEntryLayout.value(key: key, prefixLength: 4, tupleLength: 1, isCut: false, items: [items[0]])
        #expect(listed.withUnsafeBytes(IndexEntryLayout.itemCount) == 2)
        #expect(short.withUnsafeBytes(IndexEntryLayout.itemCount) == 1)
        #expect(Array(listed.dropLast()).withUnsafeBytes(IndexEntryLayout.itemCount) == nil)
    }
}
