import Foundation
import Testing
import TestSupport
@testable import KVStore

/// A count or a sum answered from an exact index plan's entries takes each record once, even
/// when two of the plan's ranges are the same: an `IN` list naming one value twice, or in two
/// spellings the index keeps alike.
@Suite("count and sum: an exact plan's entries taken once per record")
struct CountFromEntriesTests {
    @Test("an IN list whose values the index keeps alike", arguments: [
        "n IN {1, 1}", "n IN {1, 1.0, 2}", "s IN {'é', 'e\u{301}'}", "s IN[cd] {'x', 'X', 'ⅹ'}", "g IN {0, 0} AND n > 0", "g IN {1, 1.0} AND n >= 1",
    ])
    func duplicateRanges(text: String) throws {
        let folded = text.contains("[cd]")
        let t = try indexedStore([indexOn("n"), indexOn("s", folded: folded), indexOn("g", "n")])
        try t.store.write { txn in
            for n in 0 ..< 6 {
                let values: [String: Value] = ["n": .int(Int64(n % 3)), "s": n % 2 == 0 ? "x" : "é", "g": .int(Int64(n % 2))]
                try txn.insert(values, as: ref("item/\(n)"))
                try txn.insert(values, as: ref("plain/\(n)"))
            }
        }
        let query = RecordQuery(kind: "item", where: try KeyPathPredicate(text))
        let run = try t.runAgainstPlain(query)
        #expect(run.plan.residual == nil, "an exact plan, counted from its entries")
        #expect(try t.store.count(matching: query) == run.ids.count)
        var plain = query
        plain.kind = "plain"
        for path in ["@sum.n", "@avg.n"] {
            #expect(try t.store.value(forKeyPath: path, matching: query) == t.store.value(forKeyPath: path, matching: plain), "\(path)")
        }
    }
}
