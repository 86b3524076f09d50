import Foundation
import GRDB
import KVStore

/// The feed reader's screens with indexes (scenarios 20–26, numbered after the figures), kvstore
/// against GRDB with the matching expression indexes, on the items of ``FeedDataset``: 100,000 by
/// default, with companion rows at 10,000 and 1,000,000 items for 20–23 (how a query grows with
/// the store; `--feed-sizes`). Every fetched result is decoded on both sides; the figure is
/// queries per second.
///
/// Before the first round each query's plan is checked on both sides — kvstore's `explain` must
/// name the index, SQLite's `EXPLAIN QUERY PLAN` must use the expression index — and both are
/// printed with the results.
final class FeedQueryBench {
    /// One store size: kvstore's store and GRDB's database of `count` items (either nil when
    /// `--engine` leaves it out).
    struct Size {
        let count: Int
        let kvstore: FeedKVStore?
        let grdb: FeedGRDB?

        var label: String { count % 1_000_000 == 0 ? "\(count / 1_000_000)M" : count % 1_000 == 0 ? "\(count / 1_000)k" : "\(count)" }
        /// Whether a feed has a page 20 of unread items (offset 950): about 30 % of its items are unread.
        var hasPage20: Bool { count * 3 / 10 / FeedDataset.feeds >= 1_000 }
    }

    static var firstNumber: Int { Scenario.numberedCount + Figures.count + 1 }
    static let numberedCount = 7

    let sizes: [Size]
    private(set) var plans: [String] = []
    private var markedFeeds: [String: Int] = [:]

    init(config: Configuration, root: String, log: (String) -> Void) throws {
        let wants = { (engine: String) in config.engineFilter == nil || config.engineFilter == engine }
        sizes = try config.feedSizes.map { count in
            let directory = root + "/feed-\(count)"
            return Size(count: count,
                        kvstore: wants(EngineName.kvstore) ? try FeedKVStore(path: directory + "/kvstore", count: count, log: log) : nil,
                        grdb: wants(EngineName.grdb) ? try FeedGRDB(path: directory + "/grdb", count: count, log: log) : nil)
        }
        try checkPlans(log: log)
    }

    /// Whether `config` selects any of these scenarios.
    static func isSelected(_ config: Configuration) -> Bool {
        config.scenarioFilter?.contains { $0 >= firstNumber && $0 < firstNumber + numberedCount } ?? true
    }

    // MARK: The queries of a round (the same in every round)

    static func authors(_ size: Size) -> [String] {
        let authors = max(1, size.count / FeedDataset.itemsPerAuthor)
        return (0 ..< 200).map { FeedDataset.author($0 &* 7_919 % authors) }
    }

    static let pageFeeds = (0 ..< 100).map { $0 % FeedDataset.feeds }
    static let countFeeds = Array(0 ..< FeedDataset.feeds)
    static let tags = ["swift", "lmdb", "security", "ai", "games", "rust", "design", "history", "arm", "ci"]
    static let words = ["replication", "planner", "swift", "latency", "crash", "backup", "actors", "macros", "edge", "journal"]

    // MARK: Scenarios

    func scenarios() -> [Scenario] {
        var all: [Scenario] = []
        func add(_ name: String, _ rows: [(Size, String, (Workload) -> Int, FeedRuns)], durability: String = "") {
            for (offset, (size, detail, operations, runs)) in rows.enumerated() {
                var scenario = Scenario(name: "feed \(size.label): \(name)\(detail)", durability: durability, operations: operations,
                                        engines: runs.engines)
                scenario.isCompanion = offset > 0
                all.append(scenario)
            }
        }
        let growth = sizes
        add("author == $a, 50 items", growth.map { size in
            let k = size.kvstore, g = size.grdb, authors = Self.authors(size)
            let queries = k.map { k in authors.map(k.authorQuery) } ?? []
            return (size, "", { _ in authors.count }, FeedRuns(
                kvstore: k.map { k in { _ in try k.fetch(queries) } },
                grdb: g.map { g in { _ in try g.fetch(FeedGRDB.byAuthor, authors.map { [$0] }) } }))
        })
        add("newest 50 unread of a feed", growth.flatMap { size in
            [0, 950].filter { $0 == 0 || size.hasPage20 }.map { offset in
                let k = size.kvstore, g = size.grdb
                let queries = k.map { k in Self.pageFeeds.map { k.unreadQuery(feed: $0, offset: offset) } } ?? []
                let arguments: [StatementArguments] = Self.pageFeeds.map { [FeedDataset.feedID($0), offset] }
                return (size, offset == 0 ? ", page 1" : ", page 20", { _ in Self.pageFeeds.count }, FeedRuns(
                    kvstore: k.map { k in { _ in try k.fetch(queries) } },
                    grdb: g.map { g in { _ in try g.fetch(FeedGRDB.unreadPage, arguments) } }))
            }
        })
        let feedArguments: [StatementArguments] = Self.countFeeds.map { [FeedDataset.feedID($0)] }
        // Unread of each feed, counted and summed: kvstore's call and GRDB's SQL for each.
        for (name, aggregate, sql) in [("count of unread of a feed", FeedKVStore.count, FeedGRDB.unreadCount),
                                       ("@sum.words of unread of a feed", FeedKVStore.sumOfWords, FeedGRDB.unreadWords)] {
            add(name, growth.map { size in
                let k = size.kvstore, g = size.grdb
                let queries = k.map { k in Self.countFeeds.map { k.unreadQuery(feed: $0, limit: nil) } } ?? []
                return (size, "", { _ in Self.countFeeds.count }, FeedRuns(
                    kvstore: k.map { k in { _ in try aggregate(k)(queries) } },
                    grdb: g.map { g in { _ in try g.integers(sql, feedArguments) } }))
            })
        }
        let primary = sizes[0]
        let k = primary.kvstore, g = primary.grdb
        add("tags == $t, newest 50 (GRDB scans)", [(primary, "", { _ in Self.tags.count }, FeedRuns(
            kvstore: k.map { k in let queries = Self.tags.map(k.taggedQuery); return { _ in try k.fetch(queries) } },
            grdb: g.map { g in { _ in try g.fetch(FeedGRDB.tagged, Self.tags.map { [$0] }) } }))])
        add("title CONTAINS[c] $w, newest 50 (both scan)", [(primary, "", { _ in Self.words.count }, FeedRuns(
            kvstore: k.map { k in let queries = Self.words.map(k.titleQuery); return { _ in try k.fetch(queries) } },
            grdb: g.map { g in { _ in try g.fetch(FeedGRDB.titleContains, Self.words.map { [$0] }) } }))])
        add("mark all read (one feed's unread, 1 write)", [(primary, "", { _ in 1 }, FeedRuns(
            kvstore: k.map { k in { _ in try k.markAllRead(feed: self.nextFeed(EngineName.kvstore)) } },
            grdb: g.map { g in { _ in try g.markAllRead(feed: self.nextFeed(EngineName.grdb)) } }))], durability: Scenario.full)
        return all
    }

    /// The feed the engine's next mark-all-read round marks: a new one each round, the same for
    /// both engines, so both change the same items.
    private func nextFeed(_ engine: String) -> Int {
        defer { markedFeeds[engine, default: 0] += 1 }
        return markedFeeds[engine, default: 0] % FeedDataset.feeds
    }

    // MARK: Plans

    /// Checks that kvstore reads the index and SQLite uses the expression index for 20–23 (and
    /// records both plans of every query); throws when one does not.
    private func checkPlans(log: (String) -> Void) throws {
        let size = sizes[0]
        func kvstore(_ label: String, _ query: RecordQuery, expecting expected: String?) throws {
            guard let k = size.kvstore else { return }
            let plan = try k.store.explain(query).description
            plans.append("kvstore \(label): \(plan)")
            if let expected, plan != expected { throw SetupError("kvstore's plan for \(label) is '\(plan)', not '\(expected)'") }
        }
        func sqlite(_ label: String, _ sql: String, _ arguments: StatementArguments, expecting expected: String?) throws {
            guard let g = size.grdb else { return }
            let plan = try g.queryPlan(sql, arguments)
            plans.append("SQLite \(label): \(plan)")
            if let expected, !plan.contains(expected) { throw SetupError("SQLite's plan for \(label) is '\(plan)', without '\(expected)'") }
        }
        let (author, feed) = (FeedDataset.author(0), FeedDataset.feedID(0))
        let k = size.kvstore
        if let k {
            try kvstore("20", k.authorQuery(author), expecting: "index item.author")
            try kvstore("21", k.unreadQuery(feed: 0), expecting: "index item.feed,read,published")
            try kvstore("22/23", k.unreadQuery(feed: 0, limit: nil), expecting: "index item.feed,read,published")
            try kvstore("24", k.taggedQuery("swift"), expecting: "index item.tags")
            try kvstore("25", k.titleQuery("swift"), expecting: "scan item")
        }
        try sqlite("20", FeedGRDB.byAuthor, [author], expecting: "USING INDEX items_author")
        try sqlite("21", FeedGRDB.unreadPage, [feed, 950], expecting: "USING INDEX items_feed_read_published")
        try sqlite("22", FeedGRDB.unreadCount, [feed], expecting: "INDEX items_feed_read_published")
        try sqlite("23", FeedGRDB.unreadWords, [feed], expecting: "INDEX items_feed_read_published")
        try sqlite("24", FeedGRDB.tagged, ["swift"], expecting: nil)
        try sqlite("25", FeedGRDB.titleContains, ["swift"], expecting: nil)
        for plan in plans { log("plan: \(plan)") }
    }
}

/// The two engines' runs of one row (an engine left out by `--engine` is nil).
struct FeedRuns {
    let kvstore: ((Workload) throws -> Int)?
    let grdb: ((Workload) throws -> Int)?

    var engines: [EngineRun] {
        [kvstore.map { EngineRun(EngineName.kvstore, $0) }, grdb.map { EngineRun(EngineName.grdb, $0) }].compactMap { $0 }
    }
}
