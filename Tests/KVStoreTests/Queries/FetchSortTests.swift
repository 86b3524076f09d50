import Foundation
import Testing
@testable import KVStore

@Suite("fetch: sort descriptors")
struct FetchSortTests {
    let items: FetchStore
    init() throws { items = try FetchStore() }

    @Test("without sort descriptors, results come in id order")
    func idOrder() throws {
        #expect(try items.ids() == ["01", "02", "03", "04", "05", "06", "07", "08"])
        #expect(try items.ids("read == NO") == ["01", "03", "04", "05", "07", "08"])
    }

    @Test("strings by Unicode scalars by default, missing first ascending and last descending")
    func unicodeScalarOrder() throws {
        #expect(try items.ids(sort: ["title"]) == ["08", "04", "02", "01", "05", "03", "07", "06"])
        #expect(try items.ids(sort: ["title:desc"]) == ["06", "07", "03", "05", "01", "02", "04", "08"])
        #expect(try items.ids(sort: ["title:asc"]) == items.ids(sort: ["title"]))
    }

    @Test("case-insensitive and diacritic-insensitive order; strings equal once folded tie and go by id")
    func foldedOrder() throws {
        #expect(try items.ids(sort: ["title:c"]) == ["08", "01", "04", "02", "05", "03", "07", "06"])
        #expect(try items.ids(sort: ["title:cd"]) == ["08", "01", "04", "02", "05", "03", "06", "07"])
        #expect(try items.ids(sort: ["title:d"]) == ["08", "04", "02", "06", "01", "05", "03", "07"])
        // Descending: the folded ties still go by id ascending.
        #expect(try items.ids(sort: ["title:desc:c"]) == ["06", "07", "03", "02", "05", "01", "04", "08"])
    }

    @Test("localized order follows the locale's collation")
    func localizedOrder() throws {
        let english = KeyPathSort(try KeyValuePath("title"), strings: .localized(Locale(identifier: "en")))
        let query = RecordQuery(kind: "item", sortedBy: [english])
        // Lowercase before uppercase of the same letters, accents after their letter, missing first.
        #expect(try items.store.fetch(query).map(\.ref.id) == ["08", "01", "04", "05", "02", "03", "07", "06"])
        var descending = english
        descending.ascending = false
        #expect(try items.store.fetch(RecordQuery(kind: "item", sortedBy: [descending])).map(\.ref.id)
                == ["06", "07", "03", "02", "05", "04", "01", "08"])
    }

    @Test("ints and doubles sort together by numeric value; equal values tie and go by id")
    func mixedNumbers() throws {
        #expect(try items.ids(sort: ["score"]) == ["03", "07", "08", "02", "01", "05", "06", "04"])
        #expect(try items.ids(sort: ["score:desc"]) == ["04", "01", "05", "06", "02", "08", "07", "03"])
    }

    @Test("ints beyond 2^53 order exactly against doubles")
    func exactNumbers() throws {
        let t = try TemporaryStore()
        try t.store.write { txn in
            try txn.insert(["n": .int(9_007_199_254_740_993)], as: ref("n/a"))
            try txn.insert(["n": .double(9_007_199_254_740_992)], as: ref("n/b"))
            try txn.insert(["n": .double(.nan)], as: ref("n/c"))
            try txn.insert(["n": .double(-.infinity)], as: ref("n/d"))
        }
        let sorted = try t.store.fetch(RecordQuery(kind: "n", sortedBy: [KeyPathSort(try KeyValuePath("n"))]))
        #expect(sorted.map(\.ref.id) == ["c", "d", "b", "a"])  // NaN first among numbers
    }

    @Test("dates in time order")
    func dates() throws {
        #expect(try items.ids(sort: ["published"]) == ["04", "08", "02", "03", "01", "06", "05", "07"])
        let after = "published >= CAST('\(ISO8601DateFormatter().string(from: FetchStore.day(4)))', 'NSDate')"
        #expect(try items.ids(after, sort: ["published:desc"]) == ["07", "05", "06"])
    }

    @Test("several descriptors: the first sorts first, the next breaks its ties")
    func severalDescriptors() throws {
        #expect(try items.ids(sort: ["read", "published:desc"]) == ["07", "05", "01", "03", "08", "04", "06", "02"])
        #expect(try items.ids("read == NO", sort: ["score:desc", "title:c"]) == ["04", "01", "05", "08", "07", "03"])
    }

    @Test("a key path through a reference in the sort and in the predicate; a dangling one is missing")
    func throughReferences() throws {
        #expect(try items.ids(sort: ["feed.title"]) == ["06", "07", "02", "04", "08", "01", "03", "05"])
        #expect(try items.ids("feed.title == 'Swift Blog'", sort: ["title:desc"]) == ["03", "05", "01"])
        #expect(try items.ids("feed.title == nil") == ["06", "07"])
    }

    @Test("a write transaction's queries see its own changes, referenced records included")
    func inWriteTransaction() throws {
        let ids = try items.store.write { txn in
            try txn.setValue("Swift Blog", forKey: "title", of: ref("feed/b"))
            return try txn.fetch(try items.query("feed.title == 'Swift Blog'")).map(\.ref.id)
        }
        #expect(ids == ["01", "02", "03", "04", "05", "08"])
    }

    @Test("values of different types order by type: null, bool, number, string, date, bytes, reference, array, dictionary")
    func typeRanks() throws {
        let t = try TemporaryStore()
        let values: [Value] = [
            ["k": 1], [1, 2], [1], .reference(ref("x/y")), .bytes(Data([1])), .date(Date(timeIntervalSinceReferenceDate: 0)),
            "a", 1.5, true, false,
        ]
        try t.store.write { txn in
            for (index, value) in values.enumerated() { try txn.insert(["v": value], as: ref("v/\(index)")) }
            try txn.insert(["other": 1], as: ref("v/z"))
        }
        let sorted = try t.store.fetch(RecordQuery(kind: "v", sortedBy: [KeyPathSort(try KeyValuePath("v"))]))
        #expect(sorted.map(\.ref.id) == ["z", "9", "8", "7", "6", "5", "4", "3", "2", "1", "0"])
    }
}
