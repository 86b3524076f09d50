import Foundation
import Testing
import KVStore  // not @testable: the examples use the public API only

/// The examples of the Querying article and of the query API's `///` comments, run. If one stops
/// compiling, fix the text it came from too.
@Suite("fetch: doc examples")
struct FetchDocExampleTests {
    let t: TemporaryStore
    var store: Store { t.store }
    let swiftFeed = try! RecordRef("feed/swift")

    init() throws {
        t = try TemporaryStore()
        try t.store.write { txn in
            try txn.insert(["title": "Swift"], as: swiftFeed)
            for day in 0 ..< 160 {
                let published = Date(timeIntervalSinceReferenceDate: Double(day) * 86_400)
                try txn.insert([
                    "title": .string("Item \(day)"), "published": .date(published), "read": .bool(day % 4 == 0),
                    "feed": .reference(swiftFeed),
                ], kind: "item")
            }
            let ada = try RecordRef("person/ada"), grace = try RecordRef("person/grace")
            try txn.insert(["name": "Ada", "city": "London"], as: ada)
            try txn.insert(["name": "Grace", "city": "New York"], as: grace)
            try txn.insert(["amount": 120, "paid": false, "customer": .reference(ada)], as: RecordRef("invoice/1"))
            try txn.insert(["amount": 45, "paid": false, "customer": .reference(grace)], as: RecordRef("invoice/2"))
            try txn.insert(["amount": 80, "paid": true, "customer": .reference(ada)], as: RecordRef("invoice/3"))
        }
    }

    @Test("the article's overview: a page, the third page, a count and a projection in one snapshot")
    func overview() throws {
        let unread = RecordQuery(
            kind: "item",
            where: try KeyPathPredicate("feed == $feed AND read == NO"),
            variables: ["feed": .reference(swiftFeed)],
            sortedBy: [try KeyPathSort(parsing: "published:desc")],
            limit: 50
        )
        let firstPage = try store.fetch(unread)
        var third = unread
        third.offset = 100
        let thirdPage = try store.fetch(third)
        #expect(firstPage.count == 50 && thirdPage.count == 20)
        #expect(firstPage.first?.values["title"] == "Item 159")
        #expect(thirdPage.first?.values["title"] == "Item 26")  // the 101st unread item from the newest
        let (count, page) = try store.read { txn in
            (try txn.count(matching: unread), try txn.fetch(unread, keys: ["title", "published"]))
        }
        #expect(count == 50)  // the limit applies to counts too
        #expect(page.map(\.ref) == firstPage.map(\.ref) && page.allSatisfy { $0.values.count == 2 })
        #expect(try store.count(matching: RecordQuery(kind: "item", where: unread.predicate, variables: unread.variables)) == 120)
    }

    @Test("sort keys as text; RecordQueryError as one line")
    func sortKeys() throws {
        let sort = [try KeyPathSort(parsing: "feed.title:c"), try KeyPathSort(parsing: "published:desc")]
        #expect(sort == [
            KeyPathSort(try KeyValuePath("feed.title"), strings: .folded(.caseInsensitive)),
            KeyPathSort(try KeyValuePath("published"), ascending: false),
        ])
        let newest = KeyPathSort(try KeyValuePath("published"), ascending: false)
        let byTitle = KeyPathSort(try KeyValuePath("title"), strings: .folded(.caseInsensitive))
        #expect(try KeyPathSort(parsing: "title:c") == byTitle && newest.description == "published:desc")
        _ = try KeyPathSort(parsing: "customer.name:cd")
        _ = try KeyPathSort(parsing: "title:desc:localized")
        do {
            _ = try KeyPathSort(parsing: "published:newest")
            Issue.record("parsed")
        } catch {
            #expect("\(error)".hasPrefix("invalid sort key 'published:newest': unknown option 'newest'; "))
        }
    }

    @Test("counting, totals and groups")
    func aggregates() throws {
        let open = RecordQuery(kind: "invoice", where: try KeyPathPredicate("paid == NO"))
        #expect(try store.count(matching: open) == 2)
        #expect(try store.count(ofKind: "invoice", where: try KeyPathPredicate("amount > 100")) == 1)
        #expect(try store.value(forKeyPath: "@sum.amount", matching: open) == .int(165))
        #expect(try store.value(forKeyPath: "@avg.amount", matching: open) == .double(82.5))
        #expect(try store.value(forKeyPath: "customer.name", matching: open) == ["Ada", "Grace"])
        var printed: [String] = []
        for (city, count) in try store.distinctValues(forKeyPath: "customer.city", matching: open) {
            printed.append("\(city) \(count)")
        }
        #expect(printed == [#""London" 1"#, #""New York" 1"#])
    }

    @Test("streaming with a projection; explain")
    func streaming() throws {
        var titles: [Value] = []
        try store.read { txn in
            try txn.forEachRecord(matching: RecordQuery(kind: "item"), keys: ["title"]) { item in
                titles.append(item.values["title"] ?? .null)
                return titles.count < 3
            }
        }
        #expect(titles == ["Item 0", "Item 1", "Item 2"])
        #expect(try store.read { try $0.explain(RecordQuery(kind: "item")) }.description == "scan item")
    }

    @Test("ranges of ids: the newest 20, then the 20 before them")
    func ranges() throws {
        let newest = try store.records(ofKind: "item", from: nil, to: nil, reverse: true, limit: 20)
        let older = try store.records(ofKind: "item", from: nil, to: newest.last?.ref.id, reverse: true, limit: 20)
        #expect(newest.first?.values["title"] == "Item 159" && newest.last?.values["title"] == "Item 140")
        #expect(older.first?.values["title"] == "Item 139" && older.count == 20)
    }
}
