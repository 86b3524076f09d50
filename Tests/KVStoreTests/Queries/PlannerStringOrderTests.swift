import Foundation
import Testing
import TestSupport
@testable import KVStore

/// Strings in NFC order in an index as a sort orders them (by Unicode scalars), so an index gives
/// a string sort's order — until a string the index keeps in another form is stored there.
@Suite("planner: an index gives the order of a string sort key")
struct PlannerStringOrderTests {
    static let titles = ["b", "a", "é", "Z", "", "ab", "a\u{0}", "日本", "zz", "ß", "É", "ecole", "école"]

    /// Items of two feeds with those titles (and a few without), in an indexed kind and a plain copy.
    static func store(_ indexes: [KindIndex]) throws -> TemporaryStore {
        let t = try indexedStore(indexes)
        try t.store.write { txn in
            for (n, title) in (titles + titles).enumerated() {
                var values: [String: Value] = ["feed": .int(Int64(n % 2)), "title": .string(title)]
                if n % 7 == 3 { values["title"] = nil }
                try txn.insert(values, as: ref("item/\(n)"))
                try txn.insert(values, as: ref("plain/\(n)"))
            }
        }
        return t
    }

    /// The plan of each query (feed 1, sorted by title), checked against the plain kind's results.
    static func plans(_ t: TemporaryStore, sorts: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [QueryPlan.Order] {
        try sorts.map { sort in
            let query = RecordQuery(kind: "item", where: try KeyPathPredicate("feed == 1"), sortedBy: [try KeyPathSort(parsing: sort)], limit: 7, offset: 2)
            var plain = query
            plain.kind = "plain"
            return try t.store.read { txn in
                #expect(try txn.fetch(query).map(\.ref.id) == txn.fetch(plain).map(\.ref.id), "\(sort)", sourceLocation: sourceLocation)
                return try QueryPlanner.plan(for: query, in: txn).order
            }
        }
    }

    @Test func stringsInNFCComeInIndexOrder() throws {
        let t = try Self.store([indexOn("feed", "title")])
        #expect(try Self.plans(t, sorts: ["title", "title:desc"]).allSatisfy { $0 != .unordered })
        // Orders that compare strings otherwise are sorted by the executor.
        #expect(try Self.plans(t, sorts: ["title:c", "title:cd", "title:localized"]) == [.unordered, .unordered, .unordered])
    }

    @Test func aStringNotInNFCMakesTheExecutorSort() throws {
        let t = try Self.store([indexOn("feed", "title")])
        try t.store.insert(["feed": 0, "title": "e\u{301}"], as: ref("item/decomposed"))
        try t.store.insert(["feed": 0, "title": "e\u{301}"], as: ref("plain/decomposed"))
        #expect(try Self.plans(t, sorts: ["title", "title:desc"]) == [.unordered, .unordered])
        try t.store.delete(ref("item/decomposed"))
        try t.store.delete(ref("plain/decomposed"))
        #expect(try Self.plans(t, sorts: ["title", "title:desc"]).allSatisfy { $0 != .unordered })
    }

    @Test func aFoldedIndexGivesTheOrderOfAFoldedSort() throws {
        let t = try Self.store([indexOn("feed", "title", folded: true)])
        #expect(try Self.plans(t, sorts: ["title:cd", "title:cd:desc"]).allSatisfy { $0 != .unordered })
        // Its strings are kept folded: a sort by scalars is the executor's, as is one by case alone.
        #expect(try Self.plans(t, sorts: ["title", "title:c"]) == [.unordered, .unordered])
    }
}
