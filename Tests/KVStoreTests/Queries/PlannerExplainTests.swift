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
        "NOT feed == 'f1'", "feed == 'f1' OR feed == 'f2'", "published > 3", "feed == $feed.x",
        "feed.@count == 1", "'f1' == feed",
    ])
    func scans(predicate: String) throws {
        #expect(try Self.explain(Self.store(), predicate, variables: ["feed": "f1"]) == "scan item")
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
