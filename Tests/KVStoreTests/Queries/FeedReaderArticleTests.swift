import Foundation
import Testing
import KVStore  // not @testable: the article uses the public API only

/// The Swift snippets of the FeedReader article, run on a small feed reader: two feeds of 1,300
/// items each (20 % read), checked against the answers computed here from the same data. If a
/// snippet stops compiling or its result changes, fix the article too.
@Suite("the FeedReader article")
struct FeedReaderArticleTests {
    let t: TemporaryStore
    var store: Store { t.store }
    let swift = try! RecordRef("feed/swift")
    let lmdb = try! RecordRef("feed/lmdb")
    let unread = try! KeyPathPredicate("feed == $feed AND read == NO")

    /// One generated item of the store: what the checks compute their answers from.
    struct Item {
        let id: String
        let feed: RecordRef
        let read: Bool
        let published: Int64
        let author: String
        let title: String
        let tags: [String]
        let words: Int64
    }

    static let titleWords = ["swift", "release", "notes", "lmdb", "index", "query", "planner", "Crash", "report", "faster"]
    static let tagNames = ["swift", "lmdb", "databases", "security", "testing"]

    /// Item `n`: feeds alternate, every fifth item of a feed is read, `published` (Unix
    /// milliseconds) grows with `n` give or take ten minutes, 26 authors, 1–3 tags.
    static func item(_ n: Int, feeds: [RecordRef]) -> Item {
        let jitter = Int64((n * 7_919) % 1_200 - 600) * 1_000
        let title = (0 ..< 3 + n % 4).map { titleWords[(n * 31 + $0 * 7) % titleWords.count] }
        return Item(
            id: String(format: "i%05d", n), feed: feeds[n % 2], read: (n / 2) % 5 == 0,
            published: 1_700_000_000_000 + Int64(n) * 30_000 + jitter + Int64(n % 1_000),
            author: "author\(n % 26)", title: title.joined(separator: " "),
            tags: Array(Set((0 ... n % 3).map { tagNames[(n + $0 * 2) % tagNames.count] })).sorted(),
            words: Int64(200 + (n * 37) % 2_800))
    }

    let items: [Item]

    init() throws {
        t = try TemporaryStore()
        let store = t.store

        // The article's "The kind and its indexes".
        var item = try Kind("item")
        item.indexes = [
            try KindIndex(["feed", "read", "published"]),  // a feed's unread items, newest first; counts
            try KindIndex(["author"]),                      // an author's items
            try KindIndex(["tags"]),                        // multi-entry: one entry per tag
        ]
        try store.register(item)

        let swift = try RecordRef("feed/swift")
        let ref = try store.insert([
            "feed": .reference(swift), "read": false, "published": .int(1_700_000_000_000),
            "author": "ada", "title": "Swift 6.3 release notes", "tags": ["swift", "compilers"], "words": 1_200,
        ], kind: "item")
        // (end of the snippet)
        #expect(ref.kind == "item")
        try store.delete(ref)

        let lmdb = try RecordRef("feed/lmdb")
        items = (0 ..< 2_600).map { Self.item($0, feeds: [swift, lmdb]) }
        try store.write { txn in
            for item in items {
                try txn.insert([
                    "feed": .reference(item.feed), "read": .bool(item.read), "published": .int(item.published),
                    "author": .string(item.author), "title": .string(item.title),
                    "tags": .array(item.tags.map(Value.string)), "words": .int(item.words),
                ], as: RecordRef(kind: "item", id: item.id))
            }
        }
    }

    /// The ids of `items` newest first.
    func idsNewestFirst(_ items: [Item]) -> [String] {
        items.sorted { $0.published > $1.published }.map(\.id)
    }

    func unreadItems(of feed: RecordRef) -> [Item] {
        items.filter { $0.feed == feed && !$0.read }
    }

    @Test("unread items of a feed, newest first, in pages of 50; explain names the compound index")
    func unreadPages() throws {
        let store = self.store, swift = self.swift
        // The article's snippet.
        let unread = try KeyPathPredicate("feed == $feed AND read == NO")
        let newestFirst = [try KeyPathSort(parsing: "published:desc")]
        func unreadPage(of feed: RecordRef, page: Int) -> RecordQuery {
            RecordQuery(kind: "item", where: unread, variables: ["feed": .reference(feed)],
                        sortedBy: newestFirst, limit: 50, offset: page * 50)
        }
        let first = try store.fetch(unreadPage(of: swift, page: 0))
        let twentieth = try store.fetch(unreadPage(of: swift, page: 19))
        let plan = try store.explain(unreadPage(of: swift, page: 0)).description  // "index item.feed,read,published"
        // (end of the snippet)

        let expected = idsNewestFirst(unreadItems(of: swift))
        #expect(expected.count == 1_040)
        #expect(first.map(\.ref.id) == Array(expected[0 ..< 50]))
        #expect(twentieth.map(\.ref.id) == Array(expected[950 ..< 1_000]))
        #expect(first.allSatisfy { $0.values.count == 7 && $0.values["read"] == false })
        #expect(plan == "index item.feed,read,published")
    }

    @Test("unread count per feed and reading time, from the index")
    func unreadCounts() throws {
        let store = self.store, unread = self.unread, swift = self.swift
        // The article's snippet.
        let feeds = [swift, try RecordRef("feed/lmdb")]
        let badges = try store.read { txn in
            try feeds.map { feed in
                try txn.count(matching: RecordQuery(kind: "item", where: unread, variables: ["feed": .reference(feed)]))
            }
        }
        let unreadOfSwift = RecordQuery(kind: "item", where: unread, variables: ["feed": .reference(swift)])
        let minutes = try store.value(forKeyPath: "@sum.words", matching: unreadOfSwift)?.intValue.map { $0 / 250 }
        let plan = try store.explain(unreadOfSwift).description  // "index item.feed,read,published"
        // (end of the snippet)

        #expect(badges == feeds.map { unreadItems(of: $0).count })
        #expect(minutes == unreadItems(of: swift).reduce(0) { $0 + $1.words } / 250)
        #expect(plan == "index item.feed,read,published")

        // The group-by the article mentions: one pass over every item.
        let perFeed = try store.distinctValues(forKeyPath: "feed", matching: RecordQuery(kind: "item", where: try KeyPathPredicate("read == NO")))
        #expect(perFeed.map(\.value) == [.reference(lmdb), .reference(swift)] && perFeed.map(\.count) == [1_040, 1_040])
        #expect(try store.explain(RecordQuery(kind: "item", where: try KeyPathPredicate("read == NO"))).description == "scan item")
    }

    @Test("an author's items read the author index, in id order")
    func authorItems() throws {
        let store = self.store
        // The article's snippet.
        let byAuthor = RecordQuery(kind: "item", where: try KeyPathPredicate("author == $author"), variables: ["author": "author7"])
        let authorItems = try store.fetch(byAuthor)          // in id order
        let plan = try store.explain(byAuthor).description   // "index item.author"
        // (end of the snippet)

        #expect(authorItems.map(\.ref.id) == items.filter { $0.author == "author7" }.map(\.id))
        #expect(authorItems.count == 100)
        #expect(plan == "index item.author")
    }

    @Test("items tagged X read the multi-entry index, newest first")
    func taggedItems() throws {
        let store = self.store
        // The article's snippet.
        let tagged = RecordQuery(
            kind: "item", where: try KeyPathPredicate("tags == $tag"), variables: ["tag": "security"],
            sortedBy: [try KeyPathSort(parsing: "published:desc")], limit: 50)
        let taggedPage = try store.fetch(tagged)
        let plan = try store.explain(tagged).description   // "index item.tags"
        // (end of the snippet)

        let expected = idsNewestFirst(items.filter { $0.tags.contains("security") })
        #expect(expected.count > 50)
        #expect(taggedPage.map(\.ref.id) == Array(expected.prefix(50)))
        #expect(plan == "index item.tags")
    }

    @Test("titles containing a word scan the kind")
    func titleSearch() throws {
        let store = self.store
        // The article's snippet.
        let search = RecordQuery(
            kind: "item", where: try KeyPathPredicate("title CONTAINS[c] $word"), variables: ["word": "crash"],
            sortedBy: [try KeyPathSort(parsing: "published:desc")], limit: 50)
        let results = try store.fetch(search, keys: ["title", "published"])
        let plan = try store.explain(search).description  // "scan item"
        // (end of the snippet)

        let matching = items.filter { $0.title.lowercased().contains("crash") }
        #expect(matching.count > 50)
        #expect(results.map(\.ref.id) == Array(idsNewestFirst(matching).prefix(50)))
        #expect(results.allSatisfy { Set($0.values.keys) == ["title", "published"] })
        #expect(plan == "scan item")
    }

    @Test("mark all read: one write, the index kept")
    func markAllRead() throws {
        let store = self.store, unread = self.unread, swift = self.swift
        let sequence = try store.read { try $0.lastSequence() }
        // The article's snippet.
        let marked = try store.write { txn in
            let query = RecordQuery(kind: "item", where: unread, variables: ["feed": .reference(swift)])
            let items = try txn.fetch(query, keys: [])       // the refs only: nothing decoded
            for item in items { try txn.setValue(true, forKey: "read", of: item.ref) }
            return items.count
        }
        // (end of the snippet)

        #expect(marked == 1_040)
        #expect(try store.count(matching: RecordQuery(kind: "item", where: unread, variables: ["feed": .reference(swift)])) == 0)
        #expect(try store.count(matching: RecordQuery(kind: "item", where: unread, variables: ["feed": .reference(lmdb)])) == 1_040)
        #expect(try store.read { try $0.lastSequence() } == sequence + 1_040)  // one entry per item, one commit
        #expect(try store.verify().isHealthy)
    }
}
