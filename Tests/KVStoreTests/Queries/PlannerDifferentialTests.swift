import Foundation
import Testing
import TestSupport
@testable import KVStore

@Suite("planner: queries through an index give the records a scan gives")
struct PlannerDifferentialTests {
    static let paths = ["a", "b", "a.k", "r.a"]
    static let candidateIndexes = [
        indexOn("a"), indexOn("b"), indexOn("a", "b"), indexOn("a.k"), indexOn("b", folded: true),
        indexOn("a", folded: true), indexOn("b", "a"), indexOn("r.a"),
    ]

    @Test("random records, indexes and predicates: same ids, same order, same count", arguments: 1 ... 6)
    func sameAsScan(seed: UInt64) throws {
        var random = IndexValueGenerator(seed)
        let indexes = Self.candidateIndexes.filter { _ in random.int(2) == 0 }
        let t = try indexedStore(indexes)
        try t.store.write { txn in
            for n in 0 ..< 80 {
                var values: [String: Value] = [:]
                for key in ["a", "b"] where random.int(5) != 0 {
                    values[key] = random.int(3) == 0 ? random.value() : random.scalar()
                }
                if random.int(3) == 0 { values["r"] = .reference(ref("item/\(random.int(90))")) }
                try txn.insert(values, as: ref("item/\(n)"))
                try txn.insert(values, as: ref("plain/\(n)"))
            }
        }
        var indexed = 0
        for _ in 0 ..< 150 {
            let predicate = Self.predicate(&random)
            let sort = random.int(2) == 0 ? [] : [KeyPathSort(try KeyValuePath(Self.paths[random.int(2)]), ascending: random.int(2) == 0)]
            let limit = random.int(2) == 0 ? nil : random.int(10)
            let query = RecordQuery(kind: "item", where: predicate, variables: ["v": random.scalar()], sortedBy: sort, limit: limit, offset: random.int(3))
            var plain = query
            plain.kind = "plain"
            try t.store.read { txn in
                if try txn.explain(query).description.hasPrefix("index") { indexed += 1 }
                let (got, want) = (try txn.fetch(query).map(\.ref.id), try txn.fetch(plain).map(\.ref.id))
                let plan = try QueryPlanner.plan(for: query, in: txn)
                #expect(got == want, "\(predicate) \(sort) \(plan) \(plan.residual == nil) \(plan.order) \(query.variables) \(got) \(want)")
                #expect(try txn.count(matching: query) == txn.count(matching: plain), "\(predicate)")
            }
        }
        #expect(indexes.isEmpty || indexed > 0)
    }

    /// An AND of comparisons the planner serves and ones it does not, sometimes under OR or NOT.
    static func predicate(_ random: inout IndexValueGenerator) -> KeyPathPredicate {
        let conjuncts = (0 ... random.int(3)).map { _ in KeyPathPredicate.comparison(comparison(&random)) }
        let and = conjuncts.count == 1 ? conjuncts[0] : .and(conjuncts)
        switch random.int(8) {
        case 0: return .not(and)
        case 1: return .or([and, .comparison(comparison(&random))])
        default: return and
        }
    }

    static func comparison(_ random: inout IndexValueGenerator) -> PredicateComparison {
        let ops: [PredicateOperator] = [.equal, .equal, .in, .less, .lessOrEqual, .greater, .greaterOrEqual, .between, .beginsWith, .notEqual, .contains]
        let op = ops[random.int(ops.count)]
        let path = KeyPathExpression.keyPath(try! KeyValuePath(paths[random.int(paths.count)]))
        let right: KeyPathExpression
        switch op {
        case .in: right = .list((0 ... random.int(3)).map { _ in .constant(random.scalar()) })
        case .between:
            let (low, high) = random.int(2) == 0 ? (random.number(), random.number()) : (random.string(), random.string())
            right = .list([.constant(low), .constant(high)])
        case .beginsWith, .contains: right = .constant(random.string())
        default: right = random.int(5) == 0 ? .variable("v") : .constant(random.scalar())
        }
        let options: [StringComparisonOptions] = [[], [], [.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive]]
        let quantifiers: [PredicateQuantifier?] = [nil, nil, nil, .anyElement, .everyElement, .noElement]
        return PredicateComparison(path, op, right, options: options[random.int(options.count)], quantifier: quantifiers[random.int(quantifiers.count)])
    }
}
