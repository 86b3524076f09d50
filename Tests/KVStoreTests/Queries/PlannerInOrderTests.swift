import Foundation
import Testing
import TestSupport
@testable import KVStore

/// A page of every record sorted by an indexed key (a table sorted by a column): read from the
/// index in its order when its entries allow, and always the records a scan gives.
@Suite struct PlannerInOrderTests {
    @Test("random records: pages sorted by an indexed key are the scan's", arguments: [1, 2, 3, 101, 102, 103])
    func sameAsScan(seed: UInt64) throws {
        var random = IndexValueGenerator(seed)
        let indexes = [indexOn("a"), indexOn("b", folded: true), indexOn("a", "b")]
        let t = try indexedStore(indexes)
        try t.store.write { txn in
            for n in 0 ..< 120 {
                var values: [String: Value] = [:]
                for key in ["a", "b"] where random.int(6) != 0 {  // some records lack the key
                    values[key] = seed > 100 ? PlannerDifferentialTests.regular(&random, odd: nil) : random.int(4) == 0 ? random.value() : random.scalar()
                }
                try txn.insert(values, as: ref("item/\(n)"))
                try txn.insert(values, as: ref("plain/\(n)"))
            }
        }
        var fromIndex = 0
        for _ in 0 ..< 120 {
            var sort = [PlannerDifferentialTests.sort(&random)]
            if random.int(3) == 0 { sort.append(PlannerDifferentialTests.sort(&random)) }
            let query = RecordQuery(kind: "item", where: .true, sortedBy: sort, limit: 1 + random.int(30), offset: random.int(40))
            var plain = query
            plain.kind = "plain"
            try t.store.read { txn in
                let plan = try QueryPlanner.plan(for: query, in: txn)
                if case .index = plan.access { fromIndex += 1 }
                let (got, want) = (try txn.fetch(query).map(\.ref.id), try txn.fetch(plain).map(\.ref.id))
                #expect(got == want, "\(sort) limit \(query.limit ?? -1) offset \(query.offset) \(plan.order): \(got) \(want)")
            }
        }
        #expect(seed < 100 || fromIndex > 0, "no page was read from an index")
    }

    @Test func aTableSortedByAnIndexedColumnReadsTheIndex() throws {
        let t = try indexedStore([indexOn("price")])
        try t.store.write { txn in
            for n in 0 ..< 200 { try txn.insert(n % 7 == 0 ? [:] : ["price": .int(Int64((n * 37) % 101))], as: ref("item/\(n)")) }
        }
        let query = RecordQuery(kind: "item", where: .true, sortedBy: [KeyPathSort(try KeyValuePath("price"), ascending: false)], limit: 10)
        #expect(try t.store.read { try $0.explain(query) }.description == "index item.price")
        let unlimited = RecordQuery(kind: "item", where: .true, sortedBy: query.sort)
        #expect(try t.store.read { try $0.explain(unlimited) }.description == "scan item")   // every record: a scan is no slower
        let page = try t.store.read { try $0.fetch(query) }.map { $0.values["price"] }
        let priced: [Int] = (0 ..< 200).filter { $0 % 7 != 0 }
        let prices: [Int64] = priced.map { Int64(($0 * 37) % 101) }.sorted(by: >)
        let expected: [Value?] = prices.prefix(10).map { Value.int($0) }
        #expect(page == expected)
    }
}
