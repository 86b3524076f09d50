import Foundation
import Testing
import TestSupport
@testable import KVStore

/// A condition on a string that an index keeps in the form the comparison reads it (NFC on a plain
/// index without options, the `[cd]` fold on a folded index with `[cd]`) is answered by the index
/// alone: no residual, each result the scan's.
@Suite("planner: string conditions an index answers exactly")
struct PlannerExactStringTests {
    /// Titles at the edges: decomposed and precomposed spellings, case and accents, NUL, a string
    /// whose tuple is cut at the key limit, and arrays (multi-entry).
    static let titles: [Value] = [
        "école", "e\u{301}cole", "École", "ecole", "a", "a\u{0}", "ab", "日本", "",
        .string(String(repeating: "l", count: 300)), .string(String(repeating: "l", count: 300) + "x"),
        ["swift", "école"], [["a"], "b"], [],
    ]

    /// Items with those titles, some without, in the indexed kind `item` and in `plain`.
    static func store(_ indexes: [KindIndex], titles: [Value] = titles) throws -> TemporaryStore {
        let t = try indexedStore(indexes)
        try t.store.write { txn in
            for (n, title) in (titles + titles).enumerated() {
                var values: [String: Value] = ["feed": .int(Int64(n % 2)), "title": title]
                if n % 9 == 4 { values["title"] = nil }
                try txn.insert(values, as: ref("item/\(n)"))
                try txn.insert(values, as: ref("plain/\(n)"))
            }
        }
        return t
    }

    /// Whether `text`'s plan is exact (no residual), after checking its ids, page and count
    /// against the plain kind's.
    static func isExact(
        _ t: TemporaryStore, _ text: String, _ variables: [String: Value] = [:], offset: Int = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Bool {
        let query = RecordQuery(kind: "item", where: try KeyPathPredicate(text), variables: variables, limit: offset > 0 ? 3 : nil, offset: offset)
        var plain = query
        plain.kind = "plain"
        return try t.store.read { txn in
            let plan = try QueryPlanner.plan(for: query, in: txn)
            #expect(plan.description.hasPrefix("index"), "\(text)", sourceLocation: sourceLocation)
            #expect(try txn.fetch(query).map(\.ref.id) == txn.fetch(plain).map(\.ref.id), "\(text)", sourceLocation: sourceLocation)
            #expect(try txn.count(matching: query) == txn.count(matching: plain), "\(text)", sourceLocation: sourceLocation)
            return plan.residual == nil
        }
    }

    @Test("equality, IN and ranges on a plain index, any spelling of the literal", arguments: [
        "title == 'école'", "title == 'e\u{301}cole'", "title == $t", "title IN {'a', 'ab', 'école'}",
        "title < 'b'", "title > 'a'", "title BETWEEN {'a', 'ecole'}", "title == ''", "title <= '日本'",
    ])
    func plainIndex(text: String) throws {
        let t = try Self.store([indexOn("title")], titles: Self.titles.filter { $0.stringValue.map { $0.utf8.count < 200 } ?? true })
        #expect(try Self.isExact(t, text, ["t": "ab"]))
        #expect(try Self.isExact(t, text, ["t": "ab"], offset: 1))
    }

    @Test("a compound index answers a string equality then a range")
    func compoundIndex() throws {
        let t = try Self.store([indexOn("title", "feed")], titles: ["a", "b", "e\u{301}", "é", "é"])
        #expect(try Self.isExact(t, "title == 'é' AND feed > 0"))
        #expect(try Self.isExact(t, "title == 'é' AND feed == 0"))
    }

    @Test("a tuple cut at the key limit, stored or asked for, is re-checked")
    func cutStrings() throws {
        let t = try Self.store([indexOn("title")])
        let long = String(repeating: "l", count: 300)
        #expect(try !Self.isExact(t, "title == 'a'"))
        #expect(try !Self.isExact(t, "title == $t", ["t": .string(long)]))
        #expect(try !Self.isExact(t, "title == $t", ["t": .string(long + "x")]))
        // Without the long titles the index is exact again, except for a literal that is cut itself.
        let short = try Self.store([indexOn("title")], titles: ["a", "b", .string(long)])
        try short.store.write { txn in
            for id in try txn.refs(ofKind: "item") + txn.refs(ofKind: "plain") where try txn.value(forKey: "title", of: id)?.stringValue == long {
                try txn.delete(id)
            }
        }
        #expect(try Self.isExact(short, "title == 'a'"))
        #expect(try !Self.isExact(short, "title == $t", ["t": .string(long)]))
    }

    @Test("string options: exact only where the index keeps the compared form")
    func options() throws {
        let plain = try Self.store([indexOn("title"), indexOn("feed")], titles: ["école", "École", "ecole", "e\u{301}cole", ["ECOLE", "x"]])
        #expect(try !Self.isExact(plain, "title ==[c] 'ecole' AND feed == 0"))  // the feed index, the title re-checked
        #expect(try Self.isExact(plain, "title == 'ecole'"))
        let folded = try Self.store([indexOn("title", folded: true)], titles: ["école", "École", "ecole", "e\u{301}cole", ["ECOLE", "x"], "ß", "ss"])
        #expect(try Self.isExact(folded, "title ==[cd] 'ECOLE'"))
        #expect(try Self.isExact(folded, "title ==[cd] 'SS'"))
        #expect(try Self.isExact(folded, "title <[cd] 'f'"))
        #expect(try !Self.isExact(folded, "title == 'école'"))
        #expect(try !Self.isExact(folded, "title ==[c] 'école'"))
        #expect(try !Self.isExact(folded, "title ==[d] 'École'"))
        #expect(try !Self.isExact(folded, "title BEGINSWITH[cd] 'ec'"))
    }

    @Test("arrays: an element matches as ANY; a literal on the left compares whole values")
    func arrays() throws {
        let t = try Self.store([indexOn("title")], titles: ["swift", ["swift", "lmdb"], [["swift"]], ["x"], []])
        #expect(try Self.isExact(t, "title == 'swift'"))
        #expect(try Self.isExact(t, "ANY title == 'swift'"))
        #expect(try !Self.isExact(t, "'swift' == title"))
    }

    @Test("deleted and changed records leave the index, and exact results follow")
    func deletions() throws {
        let t = try Self.store([indexOn("title")], titles: ["a", "b", "a"])
        try t.store.write { txn in
            try txn.delete(ref("item/0"))
            try txn.delete(ref("plain/0"))
            try txn.setValue("b", forKey: "title", of: ref("item/2"))
            try txn.setValue("b", forKey: "title", of: ref("plain/2"))
        }
        #expect(try Self.isExact(t, "title == 'a'"))
        #expect(try Self.isExact(t, "title == 'b'", offset: 1))
    }
}
