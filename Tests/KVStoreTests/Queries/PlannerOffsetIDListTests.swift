import Foundation
import Testing
import TestSupport
@testable import KVStore

/// An exact plan's offset passed over on index entries that list several records' ids (ids so
/// long that their keys are cut alike), forward and backward, gives the page a scan gives.
@Suite("planner: offsets passed over on entries that list ids")
struct PlannerOffsetIDListTests {
    /// Ids whose first 503 bytes agree, mixed with short ones.
    static func id(_ n: Int) -> String {
        n % 3 == 0 ? "r\(n)" : String(repeating: "k", count: 503) + "\(n % 10)\(n / 10)"
    }

    @Test("every offset and limit, each order")
    func pages() throws {
        let t = try indexedStore([indexOn("g", "s"), indexOn("s")])
        try t.store.write { txn in
            for n in 0 ..< 60 {
                let values: [String: Value] = ["g": .int(Int64(n % 2)), "s": .string(["x", "y", "é", "e\u{301}z"][n % 4 == 3 ? 3 : (n / 7) % 3])]
                try txn.insert(values, as: ref("item/\(Self.id(n))"))
                try txn.insert(values, as: ref("plain/\(Self.id(n))"))
            }
        }
        let cases: [(String, String?)] = [
            ("g == 1", "s"), ("g == 1", "s:desc"), ("g == 0 AND s == 'x'", nil), ("s == 'y'", nil), ("s > 'a'", "s:desc"), ("s >= 'x'", "s"),
        ]
        var passed = 0
        for (text, sort) in cases {
            for offset in [0, 1, 2, 3, 5, 8, 13, 21, 34, 60] {
                for limit in [nil, 1, 4] as [Int?] {
                    let query = RecordQuery(kind: "item", where: try KeyPathPredicate(text), sortedBy: try sort.map { [try KeyPathSort(parsing: $0)] } ?? [],
                                            limit: limit, offset: offset)
                    let run = try t.runAgainstPlain(query)
                    if run.plan.residual == nil, run.plan.order == .sorted(query.sort) { passed += 1 }
                }
            }
        }
        #expect(passed > 0, "no exact ordered plan: nothing passed over")
    }
}
