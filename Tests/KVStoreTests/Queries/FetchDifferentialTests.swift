import Foundation
import Testing
import TestSupport
@testable import KVStore

@Suite("fetch: a query's filter agrees with evaluating the predicate on each record")
struct FetchDifferentialTests {
    /// Comparisons of every shape the filter handles itself (a top-level key against a literal) and
    /// of shapes it hands to the evaluator, over values of every type, arrays and missing keys.
    static let leaves = [
        "a == 3", "a != 3", "a < 2.5", "a >= 2", "a > 'm'", "a == TRUE", "a != FALSE", "a BETWEEN {1, 3}",
        "a IN {1, 'x', 2.0}", "a == nil", "a != nil", "a == CAST('2001-01-01T00:00:02Z', 'NSDate')",
        "a < CAST(3, 'NSDate')", "a > $v", "a ==[c] 'M'", "b BEGINSWITH[c] 'é'", "b ==[cd] 'e'", "b < 'b'",
        "b CONTAINS 'a'", "b LIKE '?b*'", "b MATCHES '[a-c].*'", "b ENDSWITH[d] 'e'", "b == 3", "b != 'E'",
        "ANY a > 2", "ALL a > 0", "NONE a == 1", "c.b == 'x'", "c.a > 1", "a.@count > 1", "a == {1, 2}",
        "a == $list", "TRUEPREDICATE", "FALSEPREDICATE", "undeclared == 1", "a.x == 1",
    ]

    @Test("random predicates over random records give the same records both ways", arguments: [1, 2, 3, 4])
    func sameRecords(seed: UInt64) throws {
        let t = try TemporaryStore()
        var random = SeededRandom(seed)
        let strings = ["abc", "ÉTÉ", "été", "b", "Bb", "m", "x", "", "ebe"]
        func scalar() -> Value {
            switch random.next() % 6 {
            case 0: .int(Int64(random.next() % 5))
            case 1: .double(Double(random.next() % 8) / 2)
            case 2: .string(strings[Int(random.next() % UInt64(strings.count))])
            case 3: .bool(random.next() % 2 == 0)
            case 4: .date(Date(timeIntervalSinceReferenceDate: Double(random.next() % 5)))
            default: .array((0 ..< random.next() % 3).map { _ in .int(Int64(random.next() % 4)) })
            }
        }
        try t.store.write { txn in
            for index in 0 ..< 120 {
                var values: [String: Value] = [:]
                if random.next() % 5 != 0 { values["a"] = scalar() }
                if random.next() % 4 != 0 { values["b"] = scalar() }
                if random.next() % 3 == 0 { values["c"] = .reference(ref("d/\(random.next() % 130)")) }
                try txn.insert(values, as: ref("d/\(index)"))
            }
        }
        let variables: [String: Value] = ["v": 2, "list": [1, 2]]
        for _ in 0 ..< 60 {
            let text = Self.predicate(depth: 2, &random)
            let predicate = try KeyPathPredicate(text)
            let query = RecordQuery(kind: "d", where: predicate, variables: variables)
            let (fetched, expected, count) = try t.store.read { txn in
                let refs = try txn.refs(ofKind: "d")
                return (
                    try txn.fetch(query).map(\.ref),
                    try refs.filter { try txn.evaluate(predicate, on: $0, variables: variables) },
                    try txn.count(matching: query)
                )
            }
            #expect(fetched == expected, "\(text)")
            #expect(count == expected.count, "\(text)")
        }
    }

    private static func predicate(depth: Int, _ random: inout SeededRandom) -> String {
        guard depth > 0, random.next() % 3 != 0 else { return leaves[Int(random.next() % UInt64(leaves.count))] }
        let left = predicate(depth: depth - 1, &random), right = predicate(depth: depth - 1, &random)
        switch random.next() % 3 {
        case 0: return "(\(left)) AND (\(right))"
        case 1: return "(\(left)) OR (\(right))"
        default: return "NOT (\(left))"
        }
    }
}
