import Foundation
import Testing
import TestSupport
@testable import KVStore

/// What records put in an index: reference-crossing key paths, missing values, compound indexes
/// over arrays, long values and long ids.
@Suite struct IndexEntriesTests {
    func tuples(_ index: KindIndex, _ record: [String: Value]) -> Set<[UInt8]> {
        Set(IndexEntries(index, record: record).tuples.map(\.bytes))
    }

    func component(_ value: Value) -> [UInt8] { IndexKeyEncoding.component(value, folded: false) }

    @Test func aKeyPathThatRunsIntoAReferenceGoesToTheUnknownBucket() throws {
        let customerCity = indexOn("customer.city")
        #expect(tuples(customerCity, ["customer": .reference(ref("person/1"))]) == [[IndexKeyEncoding.Class.unknown]])
        #expect(tuples(customerCity, ["customer": ["city": "Oslo"]]) == [component("Oslo")])
        #expect(tuples(indexOn("customer"), ["customer": .reference(ref("person/1"))]) == [component(.reference(ref("person/1")))])
        #expect(tuples(indexOn("lines.customer.city"), ["lines": [["customer": ["city": "A"]], ["customer": .reference(ref("p/1"))]]])
            == [[IndexKeyEncoding.Class.unknown]])

        let fixture = try indexedStore([customerCity])
        try fixture.store.insert(["customer": .reference(ref("person/1"))], as: ref("item/r"))
        try fixture.store.insert(["customer": ["city": "Oslo"]], as: ref("item/d"))
        #expect(try fixture.store.indexedIDs(customerCity, in: .unknownBucket) == ["r"])
        #expect(try fixture.store.ids(customerCity, equal: "Oslo") == ["d"])
        #expect(try fixture.store.findings() == [])
    }

    @Test func aPathThatCannotBeReadIsMissingAsThePredicateLanguageReadsIt() {
        let missing: Set<[UInt8]> = [[IndexKeyEncoding.Class.missing]]
        #expect(tuples(indexOn("a.b"), ["a": 5]) == missing)
        #expect(tuples(indexOn("a.b"), [:]) == missing)
        #expect(tuples(indexOn("a.b"), ["a": ["b": .null]]) == missing)
        #expect(tuples(indexOn("a.b"), ["a": [["b": 1], 7]]) == missing)  // an element with no keys: no value
        #expect(tuples(indexOn("a.b"), ["a": [["b": 1], ["c": 2]]]) == [component(1), [IndexKeyEncoding.Class.missing]])
        #expect(tuples(indexOn("a"), ["a": []]) == [[IndexKeyEncoding.Class.emptyArray]])
    }

    @Test func aCompoundIndexOverArraysTakesTheCrossProductUpToItsLimit() {
        let index = indexOn("a", "b")
        #expect(tuples(index, ["a": [1, 2], "b": ["x", "y"]]).count == 4)
        #expect(tuples(index, ["a": [1, 2], "b": "x"]) == [component(1) + component("x"), component(2) + component("x")])
        let wide = Value.array((0 ..< 17).map { .int(Int64($0)) })
        #expect(tuples(index, ["a": wide, "b": wide]) == [[IndexKeyEncoding.Class.unknown]])  // 289 > 256
        #expect(tuples(indexOn("a"), ["a": .array((0 ..< 1000).map { .int(Int64($0)) })]).count == 1000)  // one path: no limit
    }

    @Test func aLongStringIsCutAndItsEntryMarkedInexact() throws {
        let fixture = try indexedStore([indexOn("title"), indexOn("title", "n")])
        let start = String(repeating: "é", count: 200)  // 400 bytes of UTF-8
        try fixture.store.insert(["title": .string(start + "a"), "n": 1], as: ref("item/1"))
        try fixture.store.insert(["title": .string(start + "b"), "n": 2], as: ref("item/2"))
        try fixture.store.insert(["title": "short", "n": 3], as: ref("item/3"))
        let entries = try fixture.store.entries(indexOn("title"))
        #expect(entries.map(\.flags) == [[], .inexact, .inexact])  // "short" sorts first
        #expect(entries.map(\.tupleLength) == [component("short").count, IndexKeyEncoding.maximumTupleLength, IndexKeyEncoding.maximumTupleLength])
        // Both are candidates for either value, to be re-checked.
        let range = try #require(IndexKeyRange(then: .equal(.string(start + "a")), folded: false))
        let (ids, recheck) = try fixture.store.read { txn in
            try txn.indexedIDs(of: #require(try txn.builtIndex(indexOn("title"), ofKind: "item")), in: range)
        }
        #expect(ids == ["1", "2"] && recheck == ["1", "2"])
        try fixture.store.setValue(.string(start + "c"), forKey: "title", of: ref("item/1"))
        #expect(try fixture.store.findings() == [])
    }

    @Test func aLongIdIsCutInTheKeyAndListedInTheValue() throws {
        let fixture = try indexedStore([indexOn("title")], kind: "k")
        let title = Value.string(String(repeating: "t", count: 300))
        let ids = ["1", "2"].map { String(repeating: "x", count: 400) + $0 }
        for id in ids { try fixture.store.insert(["title": title], as: RecordRef(kind: "k", id: id)) }
        try fixture.store.insert(["title": title], as: RecordRef(kind: "k", id: String(repeating: "y", count: 509)))
        var entries = try fixture.store.entries(indexOn("title"), of: "k")
        #expect(entries.map(\.items.count) == [2, 1])  // the two x ids share one cut key
        #expect(entries.allSatisfy { $0.flags.contains(.idList) && $0.flags.contains(.inexact) })
        #expect(try fixture.store.findings() == [])
        try fixture.store.delete(RecordRef(kind: "k", id: ids[0]))
        entries = try fixture.store.entries(indexOn("title"), of: "k")
        #expect(entries.map { $0.items.map(\.id) } == [[ids[1]], [String(repeating: "y", count: 509)]])
        #expect(try fixture.store.findings() == [])
    }

    @Test func aShortIdBesideACutOneSharingItsKeyIsListed() throws {
        let fixture = try indexedStore([indexOn("title")], kind: "k")
        let title = Value.string(String(repeating: "t", count: 300))
        let room = IndexEntryLayout.maximumKeyLength - 4 - IndexKeyEncoding.maximumTupleLength
        let short = String(repeating: "x", count: room), long = short + "more"
        try fixture.store.insert(["title": title], as: RecordRef(kind: "k", id: long))
        try fixture.store.insert(["title": title], as: RecordRef(kind: "k", id: short))
        #expect(try fixture.store.entries(indexOn("title"), of: "k").map { $0.items.map(\.id) } == [[short, long]])
        try fixture.store.delete(RecordRef(kind: "k", id: long))
        let entries = try fixture.store.entries(indexOn("title"), of: "k")
        #expect(entries.map { $0.items.map(\.id) } == [[short]] && !entries[0].flags.contains(.idList))  // the short form again
        #expect(try fixture.store.findings() == [])
    }
}
