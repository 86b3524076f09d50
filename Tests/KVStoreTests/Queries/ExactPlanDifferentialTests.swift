import Foundation
import Testing
import TestSupport
@testable import KVStore

/// The paths an exact index plan takes — string conditions answered from the entries, offsets
/// passed over on the entries, counts from prefix counts or entries, sums streamed — give what a
/// scan of an unindexed copy gives, over strings at the key cut, in other spellings and cases,
/// long ids listed in one entry, arrays, mixed types, and inside a write that changed them.
@Suite("exact plans: strings, offsets, counts and sums agree with a scan, writes included")
struct ExactPlanDifferentialTests {
    static let indexes = [
        indexOn("s"), indexOn("s", folded: true), indexOn("s", "n"), indexOn("g", "s", "n"), indexOn("g", "s", folded: true), indexOn("t", "n"), indexOn("s", "g", "n", folded: true),
    ]
    /// With a class byte and a terminator, 236 bytes and more of a string reach the 240-byte cut.
    static let long = String(repeating: "L", count: 234)

    static func string(_ g: inout IndexValueGenerator) -> String {
        let pieces = ["x", "X", "é", "e\u{301}", "É", "ß", "SS", "ﬁ", "İ", "\u{0}", "\u{1}", "👍🏽", "ÉCOLE", "a", "\u{FF}"]
        let text = (0 ... g.int(3)).map { _ in pieces[g.int(pieces.count)] }.joined()
        return g.int(5) == 0 ? long + text : text
    }

    /// Ints mostly (near Int64's ends sometimes), some other values.
    static func number(_ g: inout IndexValueGenerator) -> Value {
        switch g.int(12) {
        case 0: return g.scalar()
        case 1: return .int([.max, .min, .max - 1][g.int(3)])
        default: return .int(Int64(g.int(7)) - 3)
        }
    }

    static func record(_ g: inout IndexValueGenerator, arrays: Bool) -> [String: Value] {
        var record: [String: Value] = [:]
        switch g.int(9) {
        case 0: break
        case 1: record["s"] = g.scalar()
        case 2 where arrays: record["s"] = .array([.string(string(&g)), .string(string(&g))])
        default: record["s"] = .string(string(&g))
        }
        if g.int(8) > 0 { record["n"] = number(&g) }
        record["g"] = .int(Int64(g.int(3)))
        if arrays, g.int(3) == 0 { record["t"] = .array((0 ..< g.int(4)).map { _ in .int(Int64(g.int(3))) }) }
        return record.filter { !$0.value.isNull }
    }

    /// Every seventh id is long enough for its entries' keys to be cut and their ids listed.
    static func ref(_ kind: String, _ n: Int) -> RecordRef {
        KVStoreTests.ref("\(kind)/" + (n % 7 == 0 ? String(repeating: "k", count: 490) + "\(n)" : "r\(n)"))
    }

    static func comparison(_ g: inout IndexValueGenerator, stored: [String]) -> KeyPathPredicate {
        func literal() -> Value { g.int(2) == 0 && !stored.isEmpty ? .string(stored[g.int(stored.count)]) : .string(string(&g)) }
        let s = KeyPathExpression.keyPath(try! KeyValuePath("s"))
        let options: [StringComparisonOptions] = [[], [], [.caseInsensitive, .diacriticInsensitive], [.caseInsensitive]]
        switch g.int(11) {
        case 0: return .comparison(PredicateComparison(.keyPath(try! KeyValuePath("g")), .equal, .constant(.int(Int64(g.int(3))))))
        case 10:  // values the index keeps alike: 1 and 1.0, or one twice
            let list: [Value] = (0 ... g.int(2)).map { _ in g.int(2) == 0 ? .int(Int64(g.int(2))) : .double(Double(g.int(2))) }
            return .comparison(PredicateComparison(.keyPath(try! KeyValuePath("g")), .in, .list(list.map { .constant($0) })))
        case 1: return .comparison(PredicateComparison(.keyPath(try! KeyValuePath("n")), [.less, .greaterOrEqual, .equal][g.int(3)], .constant(.int(Int64(g.int(5)) - 2))))
        case 2: return .comparison(PredicateComparison(.keyPath(try! KeyValuePath("t")), .equal, .constant(.int(Int64(g.int(3))))))
        case 3: return .comparison(PredicateComparison(s, .in, .list((0 ... g.int(2)).map { _ in .constant(literal()) }), options: options[g.int(4)]))
        case 4: return .comparison(PredicateComparison(s, .between, .list([.constant(literal()), .constant(literal())]), options: options[g.int(4)]))
        default:
            let ops: [PredicateOperator] = [.equal, .equal, .less, .lessOrEqual, .greater, .greaterOrEqual]
            return .comparison(PredicateComparison(s, ops[g.int(ops.count)], .constant(literal()), options: options[g.int(4)]))
        }
    }

    static func query(_ g: inout IndexValueGenerator, stored: [String]) -> RecordQuery {
        let conjuncts = (0 ... g.int(2)).map { _ in comparison(&g, stored: stored) }
        let strings: [KeyPathSort.StringOrder] = [.unicodeScalars, .folded([.caseInsensitive, .diacriticInsensitive])]
        let sorts: [[KeyPathSort]] = [
            [], [KeyPathSort(try! KeyValuePath("n"))], [KeyPathSort(try! KeyValuePath("n"), ascending: false)],
            [KeyPathSort(try! KeyValuePath("s"), strings: strings[g.int(2)])], [KeyPathSort(try! KeyValuePath("s"), ascending: false)],
            [KeyPathSort(try! KeyValuePath("s"), ascending: false), KeyPathSort(try! KeyValuePath("n"), ascending: false)],
        ]
        return RecordQuery(kind: "item", where: conjuncts.count == 1 ? conjuncts[0] : .and(conjuncts), sortedBy: sorts[g.int(sorts.count)],
                           limit: g.int(3) == 0 ? nil : g.int(8), offset: [0, 0, 1, 2, 3, 6][g.int(6)])
    }

    /// A result or an error, as text: what two runs must agree on.
    static func outcome(_ body: () throws -> some Any) -> String {
        do { return "\(try body())" } catch { return "error: \(error)" }
    }

    /// Runs `query` over `item` and `plain` in `txn` and expects the same ids, count, sum and
    /// average (the plain kind's through the ordered path: a limit no page reaches).
    /// - Returns: whether the plan was exact, and whether a prefix count answered its count.
    @discardableResult
    static func expectSame(_ query: RecordQuery, in txn: ReadTransaction, _ context: String) throws -> (exact: Bool, counted: Bool) {
        var plain = query
        plain.kind = "plain"
        let plan = try QueryPlanner.plan(for: query, in: txn)
        let describe = "\(context): \(query.predicate) \(query.sort) offset \(query.offset) limit \(String(describing: query.limit)), \(plan) residual \(String(describing: plan.residual))"
        let ids = { (q: RecordQuery) in try txn.fetch(q).map { $0.ref.id.count > 20 ? "long\($0.ref.id.suffix(3))" : $0.ref.id } }
        #expect(outcome { try ids(query) } == outcome { try ids(plain) }, "\(describe)")
        #expect(outcome { try txn.count(matching: query) } == outcome { try txn.count(matching: plain) }, "\(describe)")
        var whole = query, ordered = plain
        (whole.limit, whole.offset, ordered.limit, ordered.offset) = (nil, 0, 1_000_000, 0)
        for path in ["@sum.n", "@avg.n"] {
            #expect(outcome { try txn.value(forKeyPath: path, matching: whole) } == outcome { try txn.value(forKeyPath: path, matching: ordered) },
                    "\(describe) \(path)")
        }
        return (plan.residual == nil && plan.access != .scan(KindScan(kind: "item")), try plan.knownCount(in: txn) != nil)
    }

    /// The same random change to `item` and `plain`.
    static func change(_ txn: WriteTransaction, _ g: inout IndexValueGenerator, arrays: Bool) throws {
        let n = g.int(40)
        let other = record(&g, arrays: arrays)
        let step = g.int(7)
        for kind in ["item", "plain"] {
            let target = ref(kind, n)
            guard try txn.contains(target) else {
                try txn.insert(other, as: target)
                continue
            }
            switch step {
            case 0: try txn.delete(target)
            case 1: try txn.setValue(other["s"] ?? "x", forKey: "s", of: target)
            case 2: try txn.setValue(other["g"] ?? 1, forKey: "g", of: target)
            case 3: try txn.removeValue(forKey: ["s", "n", "g"][n % 3], of: target)
            case 4 where (try txn.value(forKey: "t", of: target))?.arrayValue != nil:
                try txn.mutableArray(forKey: "t", of: target).append(.int(Int64(n % 3)))
            case 5: try txn.setValue(other["n"] ?? 2, forKey: "n", of: target)
            default:
                try txn.delete(target)
                try txn.insert(other, as: target)
            }
        }
    }

    struct Aborted: Error {}

    @Test("random records, writes and queries", arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func sameAsScan(seed: UInt64) throws {
        var g = IndexValueGenerator(seed)
        let arrays = seed % 2 == 0
        let t = try indexedStore(Self.indexes)
        try t.store.write { txn in
            for n in 0 ..< 40 {
                let values = Self.record(&g, arrays: arrays)
                try txn.insert(values, as: Self.ref("item", n))
                try txn.insert(values, as: Self.ref("plain", n))
            }
        }
        var (exact, counted) = (0, 0)
        for round in 0 ..< 4 {
            let stored = try t.store.read { txn in try txn.fetch(RecordQuery(kind: "plain")).compactMap { $0.values["s"]?.stringValue } }
            try t.store.read { txn in
                for _ in 0 ..< 40 {
                    let run = try Self.expectSame(Self.query(&g, stored: stored), in: txn, "seed \(seed) round \(round)")
                    (exact, counted) = (exact + (run.exact ? 1 : 0), counted + (run.counted ? 1 : 0))
                }
            }
            let abort = round == 2
            do {
                try t.store.write { txn in
                    for _ in 0 ..< 12 { try Self.change(txn, &g, arrays: arrays) }
                    for _ in 0 ..< 15 { try Self.expectSame(Self.query(&g, stored: stored), in: txn, "seed \(seed) round \(round), in the write") }
                    if abort { throw Aborted() }
                }
            } catch is Aborted {}
            #expect(try t.store.findings() == [], "seed \(seed) round \(round)")
        }
        #expect(exact > 0 && counted > 0, "exact plans \(exact), prefix counts \(counted) of 160 queries")
    }
}
