import Foundation
import Testing
@testable import KVStore

@Suite("fetch: count, key-path values, distinct values and projections")
struct FetchAggregateTests {
    let items: FetchStore
    init() throws { items = try FetchStore() }

    @Test("count of the matches, with offset and limit")
    func count() throws {
        let store = items.store
        #expect(try store.count(ofKind: "item", where: try KeyPathPredicate("read == NO")) == 6)
        #expect(try store.count(ofKind: "item", where: .true) == 8)
        #expect(try store.count(ofKind: "item", where: .false) == 0)
        #expect(try store.count(ofKind: "nothing", where: try KeyPathPredicate("read == NO")) == 0)
        #expect(try store.count(ofKind: "item", where: try KeyPathPredicate("score > $min"), variables: ["min": 2.5]) == 4)
        #expect(try store.count(matching: try items.query("read == NO", limit: 4, offset: 1)) == 4)
        #expect(try store.count(matching: try items.query("read == NO", limit: 4, offset: 3)) == 3)
        #expect(try store.count(matching: try items.query(limit: 5, offset: 6)) == 2)
        #expect(try store.count(matching: try items.query(offset: 9)) == 0)
    }

    @Test("collection operators over the matches: @sum, @avg, @count, @max, @min, unions")
    func operators() throws {
        let unread = try items.query("read == NO")
        let read = try items.query("read == YES")
        let store = items.store
        #expect(try store.value(forKeyPath: "@sum.score", matching: unread) == .int(17))
        #expect(try store.value(forKeyPath: "@avg.score", matching: unread) == .double(17.0 / 6))
        #expect(try store.value(forKeyPath: "@sum.score", matching: read) == .double(5.5))
        #expect(try store.value(forKeyPath: "@avg.score", matching: read) == .double(2.75))
        #expect(try store.value(forKeyPath: "@count", matching: unread) == .int(6))
        #expect(try store.value(forKeyPath: "@count", matching: try items.query("read == NO", limit: 2)) == .int(2))
        #expect(try store.value(forKeyPath: "@max.published", matching: read) == .date(FetchStore.day(4)))
        #expect(try store.value(forKeyPath: "@min.title", matching: unread) == "Apple")
        #expect(try store.value(forKeyPath: "@distinctUnionOfObjects.feed.title", matching: unread) == ["Swift Blog", "Databases"])
        #expect(try store.value(forKeyPath: "@unionOfObjects.feed.title", matching: try items.query("score >= 3")) == ["Swift Blog", "Databases", "Swift Blog"])
        #expect(try store.value(forKeyPath: "@avg.score", matching: try items.query("FALSEPREDICATE")) == nil)
        // Sorted and cut: the two newest unread items' scores.
        #expect(try store.value(forKeyPath: "@sum.score", matching: try items.query("read == NO", sort: ["published:desc"], limit: 2)) == .int(2))
    }

    @Test("a plain key path gives each match's value in order, null where missing; errors are KVC's")
    func plainKeyPath() throws {
        let store = items.store
        #expect(try store.value(forKeyPath: "title", matching: try items.query("read == YES")) == ["Banana", "Éclair"])
        #expect(try store.value(forKeyPath: "feed.title", matching: try items.query("score < 3", sort: ["score"])) == [.null, "Databases", "Databases"])
        #expect(throws: KeyValueCodingError.self) { try store.value(forKeyPath: "@sum.title", matching: try items.query()) }
        #expect(throws: KeyValueCodingError.self) { try store.value(forKeyPath: "a..b", matching: try items.query()) }
        #expect(throws: KeyValueCodingError.self) { try store.value(forKeyPath: "@unionOfArrays.title", matching: try items.query()) }
    }

    @Test("distinct values with their counts, in sort order, missing under null")
    func distinctValues() throws {
        let store = items.store
        let feeds = try store.distinctValues(forKeyPath: "feed.title", matching: try items.query())
        #expect(feeds.map(\.value) == [.null, "Databases", "Swift Blog"])
        #expect(feeds.map(\.count) == [2, 3, 3])
        let read = try store.distinctValues(forKeyPath: "read", matching: try items.query())
        #expect(read.map(\.value) == [false, true] && read.map(\.count) == [6, 2])
        // 3 and 3.0 are distinct values that order alike: in the order of their first match.
        let scores = try store.distinctValues(forKeyPath: "score", matching: try items.query())
        #expect(scores.map(\.value) == [.null, -1, 2, 2.5, 3, 3.0, 10])
        #expect(scores.map(\.count) == [1, 1, 1, 1, 2, 1, 1])
        let unreadFeeds = try store.distinctValues(forKeyPath: "feed", matching: try items.query("read == NO"))
        #expect(unreadFeeds.map(\.count) == [1, 3, 2])  // none, feed/a, feed/b
    }

    @Test("a projection holds only the named keys, and decodes only them")
    func projection() throws {
        let (ids, statistics) = try items.run(try items.query("read == NO", sort: ["score:desc"], limit: 3), keys: ["title", "feed", "nothing"])
        #expect(ids == ["04", "01", "05"])
        #expect(statistics.recordsDecoded == 0)
        #expect(statistics.keysProjected == 9)
        let records = try items.store.fetch(try items.query("read == NO", sort: ["score:desc"], limit: 3), keys: ["title", "feed", "nothing"])
        #expect(records.map(\.values) == [
            ["title": "Apple", "feed": .reference(ref("feed/b"))],
            ["title": "apple", "feed": .reference(ref("feed/a"))],
            ["title": "banana", "feed": .reference(ref("feed/a"))],
        ])
        #expect(try items.store.fetch(try items.query(limit: 1), keys: []).map(\.values) == [[:]])
    }

    @Test("a scan reads only the keys the predicate and the sort name, each once per record")
    func onlyNamedKeysAreRead() throws {
        let (ids, statistics) = try items.run(try items.query("read == NO AND score > 2"))
        #expect(ids == ["01", "04", "05"])
        #expect(statistics.keysRead == 8 + 6)  // `read` of each record, `score` of the unread ones
        #expect(statistics.recordsDecoded == 3)
    }
}
