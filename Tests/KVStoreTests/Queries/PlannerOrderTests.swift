import Foundation
import Testing
import TestSupport
@testable import KVStore

@Suite("planner: an index gives sorted pages and exact counts, as a scan does")
struct PlannerOrderTests {
    /// Feed items whose `published` mixes ints, equal doubles, dates, NaN, strings, arrays and
    /// missing values, in an indexed kind and an unindexed copy.
    private static func store(seed: UInt64) throws -> TemporaryStore {
        let t = try indexedStore([indexOn("feed", "published"), indexOn("feed"), indexOn("published")])
        var random = IndexValueGenerator(seed)
        try t.store.write { txn in
            for n in 0 ..< 120 {
                var values: [String: Value] = ["feed": .reference(ref("feed/\(random.int(3))"))]
                let published: [Value?] = [
                    .int(Int64(random.int(20))), .double(Double(random.int(40)) / 2), .double(.nan), nil, .null,
                    .date(Date(timeIntervalSinceReferenceDate: Double(random.int(5)))), .string("x\(random.int(3))"),
                    [.int(Int64(random.int(20)))], .bool(random.int(2) == 0),
                ]
                values["published"] = published[random.int(random.int(4) == 0 ? published.count : 2)]
                if random.int(10) == 0 { values["feed"] = nil }
                try txn.insert(values, as: ref("item/\(n)"))
                try txn.insert(values, as: ref("plain/\(n)"))
            }
        }
        return t
    }

    static let predicates = [
        "feed == $feed", "feed == $feed AND published > 3", "feed == $feed AND published BETWEEN {2, 9.5}",
        "feed IN {$feed, $other} AND published <= 10", "published >= 5", "published < 4.5", "feed == $feed AND published == nil",
        "feed == $feed AND published == 4", "published > CAST(1, 'NSDate')", "TRUEPREDICATE", "feed == nil",
    ]

    @Test("pages by published, and counts, agree with a scan", arguments: 1 ... 4)
    func pages(seed: UInt64) throws {
        let t = try Self.store(seed: seed)
        var (ordered, exact) = (0, 0)
        for text in Self.predicates {
            for sort in [[], ["published"], ["published:desc"]] {
                for (limit, offset) in [(nil, 0), (5, 0), (5, 10), (50, 3)] as [(Int?, Int)] {
                    let query = RecordQuery(kind: "item", where: try KeyPathPredicate(text),
                                            variables: ["feed": .reference(ref("feed/1")), "other": .reference(ref("feed/2"))],
                                            sortedBy: try sort.map(KeyPathSort.init(parsing:)), limit: limit, offset: offset)
                    var plain = query
                    plain.kind = "plain"
                    try t.store.read { txn throws in
                        let plan = try QueryPlanner.plan(for: query, in: txn)
                        if case .index = plan.access {
                            if plan.order != .unordered { ordered += 1 }
                            if plan.residual == nil { exact += 1 }
                        }
                        #expect(try txn.fetch(query).map(\.ref.id) == txn.fetch(plain).map(\.ref.id), "\(text) \(sort) \(plan)")
                        #expect(try txn.count(matching: query) == txn.count(matching: plain), "\(text)")
                    }
                }
            }
        }
        #expect(ordered > 0 && exact > 0)
    }

    @Test("the newest-unread screen: equality then range, sorted by the index, exact")
    func feedScreen() throws {
        let t = try indexedStore([indexOn("feed", "published")])
        try t.store.write { txn in
            for n in 0 ..< 30 {
                try txn.insert(["feed": .reference(ref("feed/\(n % 2)")), "published": .int(Int64(30 - n))], as: ref("item/\(n)"))
            }
        }
        let query = RecordQuery(kind: "item", where: try KeyPathPredicate("feed == $feed AND published > 20"),
                                variables: ["feed": .reference(ref("feed/0"))], sortedBy: [try KeyPathSort(parsing: "published")], limit: 3)
        try t.store.read { txn throws in
            let plan = try QueryPlanner.plan(for: query, in: txn)
            #expect(plan.description == "index item.feed,published")
            #expect(plan.order == .sorted(query.sort))
            #expect(plan.residual == nil)
            #expect(try txn.fetch(query).map(\.ref.id) == ["8", "6", "4"])
            #expect(try txn.count(matching: query) == 3)
            var newest = query
            newest.sort = [try KeyPathSort(parsing: "published:desc")]
            #expect(try QueryPlanner.plan(for: newest, in: txn).order == .sorted(newest.sort))
            #expect(try txn.fetch(newest).map(\.ref.id) == ["0", "2", "4"])
        }
    }

    @Test("references longer than an index tuple are re-checked, not taken as exact")
    func cutTuples() throws {
        let t = try indexedStore([indexOn("feed", "published")])
        let long = String(repeating: "x", count: 300)
        try t.store.write { txn in
            for n in 0 ..< 10 {
                try txn.insert(["feed": .reference(ref("feed/\(long)\(n % 2)")), "published": .int(Int64(n))], as: ref("item/\(n)"))
            }
        }
        let query = RecordQuery(kind: "item", where: try KeyPathPredicate("feed == $feed"),
                                variables: ["feed": .reference(ref("feed/\(long)0"))], sortedBy: [try KeyPathSort(parsing: "published")])
        try t.store.read { txn throws in
            #expect(try txn.explain(query).description == "index item.feed,published")
            #expect(try txn.fetch(query).map(\.ref.id) == ["0", "2", "4", "6", "8"])
            #expect(try txn.count(matching: query) == 5)
        }
    }

    @Test("conjuncts the index answers exactly leave the residual; the others stay")
    func partialResidual() throws {
        let t = try indexedStore([indexOn("feed", "published")])
        try t.store.write { txn in
            for n in 0 ..< 30 {
                try txn.insert(["feed": .reference(ref("feed/\(n % 2)")), "published": .int(Int64(n)), "title": .string("t\(n % 3)")],
                               as: ref("item/\(n)"))
            }
        }
        let cases: [(String, String?)] = [
            ("feed == $feed AND published > 20 AND title CONTAINS '1'", "title CONTAINS \"1\""),
            ("title == 't2' AND feed == $feed AND published < 9 AND NOT title == 't1'", "title == \"t2\" AND NOT title == \"t1\""),
            ("feed == $feed AND published > 3", nil),
            ("feed == $feed AND published > 3 AND published < 12", "published < 12"),
        ]
        for (text, residual) in cases {
            let query = RecordQuery(kind: "item", where: try KeyPathPredicate(text), variables: ["feed": .reference(ref("feed/0"))])
            try t.store.read { txn in
                let plan = try QueryPlanner.plan(for: query, in: txn)
                #expect(plan.residual?.description == residual, "\(text)")
                let expected = try txn.refs(ofKind: "item").filter { try txn.evaluate(query.predicate, on: $0, variables: query.variables) }.map(\.id)
                #expect(try txn.fetch(query).map(\.ref.id) == expected.sorted(by: UTF8Text.precedes) && !expected.isEmpty, "\(text)")
            }
        }
    }
}
