import KVStore

/// The feed reader's items (scenarios 20–26): kind `item`, ids `i0000000`…, generated
/// deterministically from their number `n` for a store of `count` items.
///
/// - `feed`: one of 20 feeds, a reference `feed/f00`…`feed/f19` (in GRDB's JSON the feed's id,
///   `"f07"`, as a table would hold a foreign key);
/// - `read`: a bool, true for about 70 % of the items;
/// - `published`: Unix milliseconds, 30 s apart on average with ±10 minutes of jitter, so
///   neighbours arrive out of order; unique (the last three digits are `n % 1000`);
/// - `author`: one of `count / 50` authors, so each author has exactly 50 items at every size;
/// - `title`: 4 to 8 words of a 64-word vocabulary;
/// - `tags`: 1 to 3 distinct tags of 50;
/// - `words`: the item's length in words, 200 to 2,999 (what `@sum` adds up).
enum FeedDataset {
    static let kind = "item"
    static let feeds = 20
    static let itemsPerAuthor = 50
    static let firstPublished: Int64 = 1_700_000_000_000

    static let tags = [
        "swift", "linux", "lmdb", "sqlite", "databases", "apple", "android", "rust", "go", "python",
        "security", "privacy", "networking", "cloud", "design", "ux", "accessibility", "testing", "ci", "git",
        "compilers", "performance", "memory", "concurrency", "async", "server", "web", "javascript", "css", "html",
        "ai", "ml", "data", "science", "space", "climate", "energy", "hardware", "chips", "arm",
        "risc-v", "open-source", "licensing", "jobs", "startups", "books", "podcasts", "music", "games", "history",
    ]

    static let vocabulary = [
        "swift", "release", "notes", "faster", "builds", "new", "api", "guide", "storage", "index",
        "query", "planner", "server", "client", "update", "security", "fix", "bug", "crash", "report",
        "how", "we", "moved", "to", "linux", "from", "the", "ground", "up", "why",
        "database", "engine", "design", "review", "week", "in", "open", "source", "tools", "tips",
        "memory", "safety", "concurrency", "actors", "tasks", "async", "await", "macros", "tests", "coverage",
        "journal", "replication", "backup", "restore", "cache", "latency", "throughput", "scaling", "edge", "cases",
        "lessons", "learned", "part", "two",
    ]

    static func id(_ n: Int) -> String {
        let digits = String(n)
        return "i" + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
    }

    static func ref(_ n: Int) -> RecordRef {
        try! RecordRef(kind: kind, id: id(n))  // generated valid: a failure is a bug in the harness
    }

    static func feedID(_ feed: Int) -> String { feed < 10 ? "f0\(feed)" : "f\(feed)" }

    static func feedRef(_ feed: Int) -> RecordRef {
        try! RecordRef(kind: "feed", id: feedID(feed))
    }

    static func author(_ index: Int) -> String { "author\(index)" }

    /// Item `n` of a store of `count` items, as kvstore stores it.
    static func values(_ n: Int, count: Int) -> [String: Value] {
        var random = SplitMix64(seed: UInt64(n) &* 0xD1B5_4A32_D192_ED03 &+ 7)
        let jitter = Int64(random.next() % 1_200) - 600  // seconds
        let published = firstPublished + Int64(n) * 30_000 + jitter * 1_000 + Int64(n % 1_000)
        var itemTags: [Value] = []
        for _ in 0 ..< 1 + Int(random.next() % 3) {
            let tag = Value.string(tags[Int(random.next() % UInt64(tags.count))])
            if !itemTags.contains(tag) { itemTags.append(tag) }
        }
        let title = (0 ..< 4 + Int(random.next() % 5)).map { _ in vocabulary[Int(random.next() % UInt64(vocabulary.count))] }
        return [
            "feed": .reference(feedRef(Int(random.next() % UInt64(feeds)))),
            "read": .bool(random.next() % 10 < 7),
            "published": .int(published),
            "author": .string(author(n % max(1, count / itemsPerAuthor))),
            "title": .string(title.joined(separator: " ")),
            "tags": .array(itemTags),
            "words": .int(200 + Int64(random.next() % 2_800)),
        ]
    }

    /// The kind with its indexes, as the DocC article FeedReader declares it.
    static func declaredKind() throws -> Kind {
        var item = try Kind(kind)
        item.indexes = [
            try KindIndex(["feed", "read", "published"]),  // unread of a feed, newest first; counts
            try KindIndex(["author"]),  // an author's items
            try KindIndex(["tags"]),  // multi-entry: items tagged X
        ]
        return item
    }
}
