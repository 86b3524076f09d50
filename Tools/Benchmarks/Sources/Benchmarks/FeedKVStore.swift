import Foundation
import KVStore

/// kvstore's side of the feed-reader scenarios (20–26): a store of `count` items
/// (``FeedDataset``) whose kind declares the indexes of the DocC article FeedReader, queried
/// through the public API with the queries an app would write.
final class FeedKVStore {
    let store: Store
    let count: Int

    /// The predicates, parsed once as an app keeps them.
    static let byAuthor = try! KeyPathPredicate("author == $author")
    static let unreadOfFeed = try! KeyPathPredicate("feed == $feed AND read == NO")
    static let tagged = try! KeyPathPredicate("tags == $tag")
    static let titleContains = try! KeyPathPredicate("title CONTAINS[c] $word")
    static let newestFirst = [try! KeyPathSort(parsing: "published:desc")]

    /// Builds the store at `path`: the kind registered with its indexes, then the items inserted
    /// 1,000 per write (`.noSync` while loading, then one sync), then opened again at full
    /// durability (scenario 26 writes).
    init(path: String, count: Int, log: (String) -> Void) throws {
        let start = ContinuousClock.now
        var options = Store.Options()
        options.mapSize = Self.mapSize(count)
        do {
            var loading = options
            loading.durability = .noSync
            let store = try Store(path: path, options: loading)
            try store.register(try FeedDataset.declaredKind())
            for first in stride(from: 0, to: count, by: 1_000) {
                try store.write { txn in
                    for n in first ..< min(first + 1_000, count) {
                        try txn.insert(FeedDataset.values(n, count: count), as: FeedDataset.ref(n))
                    }
                }
            }
            try store.sync()
        }
        store = try Store(path: path, options: options)
        self.count = count
        log("kvstore: \(count) feed items with 3 indexes built in \(ContinuousClock.now - start)")
    }

    /// About 700 bytes per item (record, journal entry, index entries) at most, and room to spare.
    static func mapSize(_ count: Int) -> Int { max(256 << 20, count * 2_048) }

    func authorQuery(_ author: String) -> RecordQuery {
        RecordQuery(kind: FeedDataset.kind, where: Self.byAuthor, variables: ["author": .string(author)])
    }

    func unreadQuery(feed: Int, offset: Int = 0, limit: Int? = 50) -> RecordQuery {
        RecordQuery(kind: FeedDataset.kind, where: Self.unreadOfFeed, variables: ["feed": .reference(FeedDataset.feedRef(feed))],
                    sortedBy: limit == nil ? [] : Self.newestFirst, limit: limit, offset: offset)
    }

    func taggedQuery(_ tag: String) -> RecordQuery {
        RecordQuery(kind: FeedDataset.kind, where: Self.tagged, variables: ["tag": .string(tag)], sortedBy: Self.newestFirst, limit: 50)
    }

    func titleQuery(_ word: String) -> RecordQuery {
        RecordQuery(kind: FeedDataset.kind, where: Self.titleContains, variables: ["word": .string(word)], sortedBy: Self.newestFirst, limit: 50)
    }

    /// The records of each query (each in a read transaction of its own, as `store.fetch` reads),
    /// decoded; a checksum of their positions and contents.
    @inline(never)
    func fetch(_ queries: [RecordQuery]) throws -> Int {
        var sum = 0
        for query in queries {
            for (position, record) in try store.fetch(query).enumerated() {
                sum &+= FeedChecksum.record(position: position, words: record.values["words"]?.intValue,
                                            published: record.values["published"]?.intValue, keys: record.values.count)
            }
        }
        return sum
    }

    /// `count(matching:)` of each query; their sum.
    @inline(never)
    func count(_ queries: [RecordQuery]) throws -> Int {
        try queries.reduce(0) { $0 &+ (try store.count(matching: $1)) }
    }

    /// `value(forKeyPath: "@sum.words", matching:)` of each query; their sum.
    @inline(never)
    func sumOfWords(_ queries: [RecordQuery]) throws -> Int {
        try queries.reduce(0) { $0 &+ Int(try store.value(forKeyPath: "@sum.words", matching: $1)?.intValue ?? -1) }
    }

    /// Mark all read: in one write, the unread items of `feed` found by the query, then `read`
    /// set to true on each (journaled, the index kept). The number of items marked.
    @inline(never)
    func markAllRead(feed: Int) throws -> Int {
        try store.write { txn in
            let unread = try txn.fetch(unreadQuery(feed: feed, limit: nil), keys: [])
            for item in unread { try txn.setValue(true, forKey: "read", of: item.ref) }
            return unread.count
        }
    }
}

/// The checksum both engines compute from each result, so that a result missing, extra, out of
/// place or decoded differently fails the run.
enum FeedChecksum {
    static func record(position: Int, words: Int64?, published: Int64?, keys: Int) -> Int {
        (position + 1) &* (Int(words ?? -1) &+ keys &* 1_000 &+ Int((published ?? 0) % 1_000_000))
    }
}
