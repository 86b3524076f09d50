import Foundation
import Testing
import TestSupport
@testable import KVStore

@Suite("planner: a query reads an index when one serves its conditions")
struct PlannerExplainTests {
    private static func store() throws -> TemporaryStore {
        let t = try indexedStore([indexOn("feed"), indexOn("feed", "published"), indexOn("title", folded: true)])
        try t.store.write { txn in
            for n in 0 ..< 20 {
                try txn.insert([
                    "feed": .string("f\(n % 3)"), "published": .int(Int64(n)),
                    "title": .string(n % 2 == 0 ? "Été \(n)" : "ete \(n)"), "tags": ["x", .string("t\(n % 4)")],
                ], as: ref("item/\(n)"))
            }
        }
        return t
    }

    private static func explain(_ t: TemporaryStore, _ predicate: String, sort: [String] = [], variables: [String: Value] = [:]) throws -> String {
        let query = RecordQuery(kind: "item", where: try KeyPathPredicate(predicate), variables: variables, sortedBy: try sort.map(KeyPathSort.init(parsing:)))
        return try t.store.explain(query).description
    }

    @Test("equality, IN, ranges and BEGINSWITH on an indexed key read the index", arguments: [
        "feed == 'f1'", "feed IN {'f1', 'f2'}", "feed > 'f0'", "feed BETWEEN {'f0', 'f1'}",
        "feed BEGINSWITH 'f'", "feed == nil", "feed == $feed AND title CONTAINS 'x'",
    ])
    func feedIndex(predicate: String) throws {
        #expect(try Self.explain(Self.store(), predicate, variables: ["feed": "f1"]) == "index item.feed")
    }

    @Test("other conditions scan the kind", arguments: [
        "TRUEPREDICATE", "feed != 'f1'", "feed CONTAINS 'f'", "feed ==[c] 'F1'", "ALL tags == 'x'",
        "NOT feed == 'f1'", "feed == 'f1' OR published > 3", "published > 3", "feed == $feed.x",
        "feed.@count == 1", "'f1' BEGINSWITH feed", "'f1' != feed",
    ])
    func scans(predicate: String) throws {
        #expect(try Self.explain(Self.store(), predicate, variables: ["feed": "f1"]) == "scan item")
    }

    @Test("a literal on the left reads the index as the mirrored comparison", arguments: [
        ("'f1' == feed", "feed == 'f1'"), ("'f1' < feed", "feed > 'f1'"), ("'f1' >= feed", "feed <= 'f1'"),
        ("nil == feed", "feed == nil"), ("$feed == feed AND 4 < published", "feed == 'f2' AND published > 4"),
        ("4 < published", "published > 4"), ("5 == published", "published == 5"),
    ])
    func literalOnTheLeft(predicate: String, mirrored: String) throws {
        let t = try Self.store()
        try t.store.declareIndex(indexOn("published"), ofKind: "item")
        try t.store.write { txn in
            // An array compared whole: `'f1' == feed` does not hold for ['f1'], `feed == 'f1'` does.
            try txn.insert(["feed": ["f1"], "published": [5, 6]], as: ref("item/array"))
            try txn.insert(["feed": "f2", "published": 9], as: ref("item/f2"))
        }
        #expect(try Self.explain(t, predicate, variables: ["feed": "f2"]).hasPrefix("index item."))
        try t.store.read { txn in
            let query = RecordQuery(kind: "item", where: try KeyPathPredicate(predicate), variables: ["feed": "f2"])
            let expected = try txn.refs(ofKind: "item").filter { try txn.evaluate(query.predicate, on: $0, variables: query.variables) }.map(\.id)
            #expect(try txn.fetch(query).map(\.ref.id).sorted() == expected.sorted())
            #expect(try txn.count(matching: query) == expected.count)
            #expect(try txn.explain(RecordQuery(kind: "item", where: try KeyPathPredicate(mirrored))) == txn.explain(query))
        }
    }

    @Test("an OR whose operands each have an index reads their union", arguments: [
        ("feed == 'f1' OR feed == 'f2'", "index item.feed"),
        ("feed == 'f1' OR title BEGINSWITH[cd] 'ete 1'", "index item.feed | index item.title"),
        ("(feed == 'f0' AND published > 10) OR title ==[c] 'été 4' OR feed IN {'f1'}", "index item.feed,published | index item.title | index item.feed"),
        ("title CONTAINS 'e' AND (feed == 'f2' OR title ==[cd] 'ETE 3')", "index item.feed | index item.title"),
    ])
    func union(predicate: String, explained: String) throws {
        let t = try Self.store()
        try t.store.insert(["feed": "f1", "tags": ["f1"]], as: ref("item/extra"))
        try t.store.read { txn in
            for sort in [[], ["published:desc"]] {
                let query = RecordQuery(kind: "item", where: try KeyPathPredicate(predicate), sortedBy: try sort.map(KeyPathSort.init(parsing:)), limit: 6, offset: 1)
                let line = try txn.explain(query).description
                // (With the sort, `feed,published` serves `feed == …` as well as `feed` does.)
                #expect(sort.isEmpty ? line == explained : line.hasPrefix("index item.feed"))
                let expected = try txn.refs(ofKind: "item").filter { try txn.evaluate(query.predicate, on: $0) }
                let all = RecordQuery(kind: "item", where: query.predicate, sortedBy: query.sort)
                #expect(try txn.fetch(all).count == expected.count && expected.count > 1)
                #expect(try txn.count(matching: all) == expected.count)
                if sort.isEmpty { #expect(try txn.fetch(query).map(\.ref) == Array(expected.sorted().dropFirst().prefix(6))) }
            }
        }
    }

    @Test("LIKE with a literal start reads the range BEGINSWITH reads, and keeps the LIKE", arguments: [
        ("title LIKE[cd] 'ETE 1*'", "index item.title"), ("title LIKE[c] 'été 1?'", "index item.title"),
        ("feed LIKE 'f*1'", "index item.feed"), ("feed LIKE 'f\\\\*'", "index item.feed"), ("feed LIKE '*1'", "scan item"),
        ("feed LIKE '?1'", "scan item"), ("ANY tags LIKE 't*'", "scan item"),
    ])
    func like(predicate: String, explained: String) throws {
        let t = try Self.store()
        try t.store.insert(["feed": "f*", "title": "Été 1*"], as: ref("item/star"))
        try t.store.read { txn in
            let query = RecordQuery(kind: "item", where: try KeyPathPredicate(predicate))
            #expect(try txn.explain(query).description == explained)
            let plan = try QueryPlanner.plan(for: query, in: txn)
            #expect(plan.residual == query.predicate)
            let expected = try txn.refs(ofKind: "item").filter { try txn.evaluate(query.predicate, on: $0) }
            #expect(try txn.fetch(query).map(\.ref) == expected.sorted() && !expected.isEmpty)
        }
        #expect(IndexCondition.literalStart(ofPattern: "a\\?b*c") == "a?b" && IndexCondition.literalStart(ofPattern: "ab\\") == "ab")
    }

    @Test("a compound index serves an equality then a range")
    func compound() throws {
        let t = try Self.store()
        #expect(try Self.explain(t, "feed == 'f1' AND published > 4", sort: ["published"]) == "index item.feed,published")
        let query = RecordQuery(kind: "item", where: try KeyPathPredicate("feed == 'f1' AND published > 4"),
                                sortedBy: [try KeyPathSort(parsing: "published")], limit: 3)
        #expect(try t.store.read { try $0.fetch(query).map(\.ref.id) } == ["7", "10", "13"])
        #expect(try t.store.read { try $0.count(matching: query) } == 3)
    }

    @Test("a folded index serves [cd] and [c] comparisons, and counts match")
    func folded() throws {
        let t = try Self.store()
        #expect(try Self.explain(t, "title BEGINSWITH[cd] 'ETE 1'") == "index item.title")
        #expect(try Self.explain(t, "title ==[c] 'ete 1'") == "index item.title")
        #expect(try Self.explain(t, "title <[c] 'f'") == "scan item")
        let query = RecordQuery(kind: "item", where: try KeyPathPredicate("title BEGINSWITH[cd] 'ETE 1'"))
        #expect(try t.store.read { try $0.fetch(query).map(\.ref.id) } == ["1", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19"])
        #expect(try t.store.read { try $0.count(matching: query) } == 11)
    }

    @Test("a kind with an undefined-key hook is scanned")
    func hook() throws {
        let t = try Self.store()
        var kind = try #require(t.store.kind(named: "item"))
        kind.valueForUndefinedKey = { _, _, _ in .string("f1") }
        try t.store.register(kind)
        #expect(try Self.explain(t, "feed == 'f1'") == "scan item")
    }
}
