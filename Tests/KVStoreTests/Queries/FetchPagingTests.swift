import Foundation
import Testing
import TestSupport
@testable import KVStore

@Suite("fetch: offset, limit, paging and the work a query does")
struct FetchPagingTests {
    let items: FetchStore
    init() throws { items = try FetchStore() }

    @Test("offset skips results and limit caps them, with and without a sort")
    func offsetAndLimit() throws {
        #expect(try items.ids(limit: 3) == ["01", "02", "03"])
        #expect(try items.ids(limit: 3, offset: 6) == ["07", "08"])
        #expect(try items.ids("read == NO", limit: 2, offset: 1) == ["03", "04"])
        #expect(try items.ids(sort: ["score:desc"], limit: 3, offset: 1) == ["01", "05", "06"])
        #expect(try items.ids(sort: ["score"], offset: 7) == ["04"])
        #expect(try items.ids(limit: 0).isEmpty)
        #expect(try items.ids(offset: 8).isEmpty)
        #expect(try items.ids(sort: ["title"], limit: .max, offset: 1).count == 7)
    }

    @Test("without a sort, a limit stops the scan at the last result it needs")
    func limitStopsTheScan() throws {
        let unsorted = try items.run(try items.query("read == NO", limit: 2))
        #expect(unsorted.ids == ["01", "03"])
        #expect(unsorted.statistics.candidates == 3)  // 01, 02, 03: then the scan stopped
        #expect(unsorted.statistics.evaluated == 3)
        #expect(unsorted.statistics.recordsDecoded == 2)
        let paged = try items.run(try items.query("read == NO", limit: 1, offset: 2))
        #expect(paged.ids == ["04"])
        #expect(paged.statistics.candidates == 4)
        #expect(paged.statistics.recordsDecoded == 1)  // the skipped matches are not decoded
        let none = try items.run(try items.query("read == NO", limit: 0))
        #expect(none.statistics.candidates == 0)
    }

    @Test("with a sort, every candidate is read but only the page is decoded")
    func sortReadsAllDecodesPage() throws {
        let top = try items.run(try items.query("read == NO", sort: ["published:desc"], limit: 2))
        #expect(top.ids == ["07", "05"])
        #expect(top.statistics.candidates == 8)
        #expect(top.statistics.recordsDecoded == 2)
        // `read` from all 8, `published` from the 6 matches: no other key is read.
        #expect(top.statistics.keysRead == 8 + 6)
    }

    @Test("TRUEPREDICATE reads no key to filter, and count reads the kind's counter")
    func noResidual() throws {
        let all = try items.run(try items.query())
        #expect(all.statistics.evaluated == 0)
        #expect(all.statistics.keysRead == 0)
        let statistics = QueryStatistics()
        let count = try items.store.read { txn in try txn.executor(for: try items.query(), statistics: statistics).count() }
        #expect(count == 8)
        #expect(statistics.candidates == 0)
        let limited = QueryStatistics()
        let page = try items.store.read { txn in
            try txn.executor(for: try items.query("read == NO", limit: 2), statistics: limited).count()
        }
        #expect(page == 2)
        #expect(limited.candidates == 3)  // a limited count stops early too
    }

    @Test("paging through ties with offset and limit gives every record once, in the full order")
    func stablePaging() throws {
        let t = try TemporaryStore()
        var random = SeededRandom(7)
        try t.store.write { txn in
            for index in 0 ..< 200 {
                var values: [String: Value] = ["group": .int(Int64(random.next() % 4))]
                if random.next() % 5 != 0 { values["rank"] = random.next() % 2 == 0 ? .int(Int64(random.next() % 3)) : .double(1) }
                try txn.insert(values, as: ref("r/\(random.next() % 100_000)-\(index)"))
            }
        }
        let sort = [try KeyPathSort(parsing: "rank:desc"), try KeyPathSort(parsing: "group")]
        let all = try t.store.fetch(RecordQuery(kind: "r", where: try KeyPathPredicate("group != 3"), sortedBy: sort))
        for size in [1, 7, 50] {
            var paged: [Record] = []
            for offset in stride(from: 0, to: all.count + size, by: size) {
                let query = RecordQuery(kind: "r", where: try KeyPathPredicate("group != 3"), sortedBy: sort, limit: size, offset: offset)
                paged += try t.store.fetch(query)
            }
            #expect(paged == all, "pages of \(size)")
            #expect(Set(paged.map(\.ref)).count == paged.count)
        }
    }

    @Test("the top-k kept for a limit equals the same page cut from a full sort", arguments: [1, 2, 3])
    func topKMatchesFullSort(seed: UInt64) throws {
        let t = try TemporaryStore()
        var random = SeededRandom(seed)
        let words = ["a", "B", "b", "é", "E", "z"]
        try t.store.write { txn in
            for index in 0 ..< 150 {
                var values: [String: Value] = [:]
                switch random.next() % 4 {
                case 0: values["x"] = .int(Int64(random.next() % 10))
                case 1: values["x"] = .double(Double(random.next() % 20) / 2)
                case 2: values["x"] = .string(words[Int(random.next() % UInt64(words.count))])
                default: break
                }
                values["y"] = .int(Int64(random.next() % 3))
                try txn.insert(values, as: ref("t/\(index)"))
            }
        }
        for sortText in [["x"], ["x:desc"], ["y", "x:c"], ["y:desc", "x:desc:cd"]] {
            let sort = try sortText.map(KeyPathSort.init(parsing:))
            let full = try t.store.fetch(RecordQuery(kind: "t", where: try KeyPathPredicate("y != 1"), sortedBy: sort))
            for (offset, limit) in [(0, 1), (0, 10), (5, 10), (90, 50), (200, 5)] {
                let page = try t.store.fetch(RecordQuery(kind: "t", where: try KeyPathPredicate("y != 1"), sortedBy: sort, limit: limit, offset: offset))
                #expect(page == Array(full.dropFirst(offset).prefix(limit)), "\(sortText) offset \(offset) limit \(limit)")
            }
        }
    }
}
