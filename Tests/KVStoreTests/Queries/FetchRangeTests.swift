import Foundation
import Testing
@testable import KVStore

@Suite("fetch: range reads by id")
struct FetchRangeTests {
    let items: FetchStore

    init() throws {
        items = try FetchStore()
        // Neighbouring kinds, before and after `item` in key order, that a range must not reach.
        try items.store.insert(["x": 1], as: ref("ite/zz"))
        try items.store.insert(["x": 1], as: ref("items/00"))
        try items.store.insert(["x": 1], as: ref("item_/00"))
    }

    private func ids(_ start: String?, _ end: String?, reverse: Bool = false, limit: Int? = nil) throws -> [String] {
        try items.store.records(ofKind: "item", from: start, to: end, reverse: reverse, limit: limit).map(\.ref.id)
    }

    @Test("forward: from the start id (inclusive) to the end id (exclusive)")
    func forward() throws {
        #expect(try ids(nil, nil) == ["01", "02", "03", "04", "05", "06", "07", "08"])
        #expect(try ids("03", "06") == ["03", "04", "05"])
        #expect(try ids("025", nil) == ["03", "04", "05", "06", "07", "08"])
        #expect(try ids(nil, "02") == ["01"])
        #expect(try ids("08", nil) == ["08"])
        #expect(try ids("09", nil).isEmpty)
        #expect(try ids("05", "05").isEmpty)
        #expect(try ids("06", "03").isEmpty)
    }

    @Test("reverse: the same ranges from the highest id down")
    func reverse() throws {
        #expect(try ids(nil, nil, reverse: true) == ["08", "07", "06", "05", "04", "03", "02", "01"])
        #expect(try ids("03", "06", reverse: true) == ["05", "04", "03"])
        #expect(try ids(nil, "02", reverse: true) == ["01"])
        #expect(try ids("08", nil, reverse: true) == ["08"])
        #expect(try ids(nil, "00", reverse: true).isEmpty)
        #expect(try ids("05", "05", reverse: true).isEmpty)
    }

    @Test("a limit stops the cursor; keyset paging walks the kind backwards")
    func limitAndPaging() throws {
        #expect(try ids(nil, nil, limit: 2) == ["01", "02"])
        #expect(try ids(nil, nil, reverse: true, limit: 3) == ["08", "07", "06"])
        #expect(try ids("03", nil, reverse: true, limit: 2) == ["08", "07"])
        #expect(try ids(nil, nil, limit: 0).isEmpty)
        var pages: [[String]] = []
        var end: String?
        repeat {
            pages.append(try ids(nil, end, reverse: true, limit: 3))
            end = pages.last?.last
        } while pages.last?.count == 3
        #expect(pages == [["08", "07", "06"], ["05", "04", "03"], ["02", "01"]])
    }

    @Test("records are decoded whole; an empty or unknown kind has none; bad input is refused")
    func recordsAndErrors() throws {
        let records = try items.store.records(ofKind: "item", from: "02", to: "03")
        #expect(records == [Record(ref: ref("item/02"), values: try #require(try items.store.record(ref("item/02"))))])
        #expect(try items.store.records(ofKind: "nothing", from: nil, to: nil, reverse: true).isEmpty)
        #expect(throws: RecordRefError.self) { try items.store.records(ofKind: "no kind", from: nil, to: nil) }
        #expect(throws: RecordQueryError(.invalidLimit, "the limit is -1; it must be 0 or more")) {
            try items.store.records(ofKind: "item", from: nil, to: nil, limit: -1)
        }
        var visited: [String] = []
        try items.store.read { txn in
            try txn.forEachRecord(ofKind: "item", from: "02", to: nil, reverse: true) { record in
                visited.append(record.ref.id)
                return record.ref.id != "05"
            }
        }
        #expect(visited == ["08", "07", "06", "05"])
    }
}
