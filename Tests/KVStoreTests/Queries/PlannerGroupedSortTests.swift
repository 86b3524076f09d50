import Foundation
import Testing
import TestSupport
@testable import KVStore

/// When an index gives the order of the leading sort descriptors only, the executor reads it in
/// that order, sorts each run of ties by the other descriptors and by id, and stops once the
/// page is complete.
@Suite("planner: several sort keys, the leading ones from an index")
struct PlannerGroupedSortTests {
    /// 60 items of feed 1 (and 60 of others) with few distinct dates, so runs of ties are long,
    /// in an indexed kind and a plain copy.
    static func store(_ indexes: [KindIndex]) throws -> TemporaryStore {
        let t = try indexedStore(indexes)
        try t.store.write { txn in
            for n in 0 ..< 120 {
                var values: [String: Value] = ["feed": .int(Int64(n % 2)), "published": .int(Int64(n % 7)), "title": .string("t\(n % 5)")]
                if n % 11 == 0 { values["published"] = nil }
                if n % 13 == 0 { values["title"] = nil }
                try txn.insert(values, as: ref("item/\(String(format: "%03d", 119 - n))"))
                try txn.insert(values, as: ref("plain/\(String(format: "%03d", 119 - n))"))
            }
        }
        return t
    }

    static func run(_ t: TemporaryStore, _ predicate: String, _ sort: [String], limit: Int? = 5, offset: Int = 0,
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> (order: QueryPlan.Order, candidates: Int) {
        let query = RecordQuery(kind: "item", where: try KeyPathPredicate(predicate), sortedBy: try sort.map(KeyPathSort.init(parsing:)),
                                limit: limit, offset: offset)
        let run = try t.runAgainstPlain(query, sourceLocation: sourceLocation)
        return (run.plan.order, run.statistics.candidates)
    }

    @Test func theSecondKeyIsSortedWithinRunsOfTheFirst() throws {
        let t = try Self.store([indexOn("feed", "published")])
        for sort in [["published", "title"], ["published:desc", "title"], ["published", "title:desc"], ["published:desc", "title:c"]] {
            for (limit, offset) in [(5, 0), (5, 12), (nil, 0), (1, 59)] as [(Int?, Int)] {
                let (order, candidates) = try Self.run(t, "feed == 1", sort, limit: limit, offset: offset)
                #expect(order == .grouped(try sort.map(KeyPathSort.init(parsing:)), leading: 1))
                // Runs of 8 or 9 (7 dates and missing among 60): a page reads the runs it spans, and one more.
                if let limit { #expect(candidates <= limit + offset + 20, "\(sort) \(limit) \(offset)") }
            }
        }
    }

    @Test func trailingKeyPathsOfTheIndexAreRunsTooTiesGoByID() throws {
        let t = try Self.store([indexOn("feed", "published", "title")])
        let (order, _) = try Self.run(t, "feed == 1 AND published > 2", ["published"])
        #expect(order == .grouped([try KeyPathSort(parsing: "published")], leading: 1))
        #expect(try Self.run(t, "feed == 1", ["published", "title"]).order == .sorted(try ["published", "title"].map(KeyPathSort.init(parsing:))))
        #expect(try Self.run(t, "feed == 1", ["published:desc", "title:desc"]).order != .unordered)
        #expect(try Self.run(t, "feed == 1", ["published:desc", "title"]).order == .grouped(try ["published:desc", "title"].map(KeyPathSort.init(parsing:)), leading: 1))
        #expect(try Self.run(t, "feed == 1", ["title"]).order == .unordered)
    }

    @Test func anIrregularSecondKeyLeavesTheFirstToTheIndex() throws {
        let t = try Self.store([indexOn("feed", "published", "title")])
        for kind in ["item", "plain"] { try t.store.insert(["feed": 1, "published": 3, "title": .double(.nan)], as: ref("\(kind)/nan")) }
        #expect(try Self.run(t, "feed == 1", ["published", "title"]).order == .grouped(try ["published", "title"].map(KeyPathSort.init(parsing:)), leading: 1))
    }

    @Test func anInListIsMergedInTheOrderOfTheSortKey() throws {
        let t = try indexedStore([indexOn("feed", "published")])
        try t.store.write { txn in
            for n in 0 ..< 300 {
                // Feeds of different lengths: each range's sort key starts at its own offset.
                let values: [String: Value] = ["feed": .reference(ref("feed/\(String(repeating: "f", count: 1 + n % 4))")),
                                               "published": .int(Int64((n * 37) % 101))]
                try txn.insert(values, as: ref("item/\(n)"))
                try txn.insert(values, as: ref("plain/\(n)"))
            }
        }
        let variables: [String: Value] = ["a": .reference(ref("feed/f")), "b": .reference(ref("feed/fff")), "c": .reference(ref("feed/ffff"))]
        for predicate in ["feed IN {$a, $b, $c}", "feed IN {$c, $a} AND published > 40", "feed IN {$a, $b} AND published BETWEEN {10, 20}"] {
            for sort in [["published"], ["published:desc"], ["published:desc", "feed"]] {
                let query = RecordQuery(kind: "item", where: try KeyPathPredicate(predicate), variables: variables,
                                        sortedBy: try sort.map(KeyPathSort.init(parsing:)), limit: 10, offset: 3)
                var plain = query
                plain.kind = "plain"
                try t.store.read { txn in
                    let plan = try QueryPlanner.plan(for: query, in: txn)
                    #expect(plan.order == .grouped(query.sort, leading: 1), "\(predicate) \(sort)")
                    let statistics = QueryStatistics()
                    var got: [String] = []
                    try txn.forEachRecord(matching: query, keys: nil, statistics: statistics) { record in
                        got.append(record.ref.id)
                        return true
                    }
                    #expect(got == (try txn.fetch(plain).map(\.ref.id)), "\(predicate) \(sort)")
                    #expect(statistics.candidates <= 13 + 3, "\(predicate) \(sort): \(statistics.candidates) candidates")
                    #expect(try txn.count(matching: query) == txn.count(matching: plain))
                }
            }
        }
    }
}
