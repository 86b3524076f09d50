import Foundation
import GRDB
import KVStore

/// GRDB's side of the feed-reader scenarios (20–26): the same items as JSON rows of
/// `items(id TEXT PRIMARY KEY, data TEXT) WITHOUT ROWID` (``JSONRecord``, as ``GRDBEngine`` stores
/// records; the feed as its id) with the expression indexes matching kvstore's, and a `journal`
/// table written in the same transaction as every change, as in ``GRDBEngine``.
final class FeedGRDB {
    let pool: DatabasePool
    let count: Int

    /// The expression indexes matching kvstore's `feed,read,published` and `author`. kvstore's
    /// multi-entry `tags` index has no expression-index equivalent (SQLite cannot index the
    /// elements of a JSON array without a table of its own), so GRDB scans for tags.
    static let indexes = [
        "CREATE INDEX items_feed_read_published ON items(data ->> 'feed', data ->> 'read', data ->> 'published')",
        "CREATE INDEX items_author ON items(data ->> 'author')",
    ]

    static let unreadWhere = "data ->> 'feed' = ? AND data ->> 'read' = 0"
    static let byAuthor = "SELECT id, data FROM items WHERE data ->> 'author' = ? ORDER BY id"
    static let unreadPage = "SELECT id, data FROM items WHERE \(unreadWhere) ORDER BY data ->> 'published' DESC LIMIT 50 OFFSET ?"
    static let unreadCount = "SELECT count(*) FROM items WHERE \(unreadWhere)"
    static let unreadWords = "SELECT sum(data ->> 'words') FROM items WHERE \(unreadWhere)"
    static let tagged = """
        SELECT id, data FROM items WHERE EXISTS (SELECT 1 FROM json_each(data, '$.tags') WHERE value = ?) \
        ORDER BY data ->> 'published' DESC LIMIT 50
        """
    static let titleContains = "SELECT id, data FROM items WHERE data ->> 'title' LIKE '%' || ? || '%' ORDER BY data ->> 'published' DESC LIMIT 50"

    /// Builds the database at `path`: rows inserted 1,000 per transaction (`synchronous = OFF`
    /// while loading), then the indexes, `ANALYZE`, and `synchronous = FULL`.
    init(path: String, count: Int, log: (String) -> Void) throws {
        let start = ContinuousClock.now
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        var configuration = GRDB.Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        pool = try DatabasePool(path: path + "/db.sqlite", configuration: configuration)
        self.count = count
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: """
                PRAGMA synchronous = OFF;
                CREATE TABLE items (id TEXT PRIMARY KEY, data TEXT NOT NULL) WITHOUT ROWID;
                CREATE TABLE journal (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, id TEXT NOT NULL, key TEXT, old, new);
                """)
        }
        for first in stride(from: 0, to: count, by: 1_000) {
            try pool.write { db in
                let statement = try db.cachedStatement(sql: "INSERT INTO items (id, data) VALUES (?, ?)")
                for n in first ..< min(first + 1_000, count) {
                    try statement.execute(arguments: [FeedDataset.id(n), JSONRecord.text(FeedDataset.values(n, count: count))])
                }
            }
        }
        try pool.writeWithoutTransaction { db in
            for index in Self.indexes { try db.execute(sql: index) }
            try db.execute(sql: "ANALYZE; PRAGMA synchronous = FULL")
        }
        log("GRDB: \(count) feed items with 2 expression indexes built in \(ContinuousClock.now - start)")
    }

    /// SQLite's `EXPLAIN QUERY PLAN` of `sql`, its lines joined by "; ".
    func queryPlan(_ sql: String, _ arguments: StatementArguments) throws -> String {
        try pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }.joined(separator: "; ")
        }
    }

    /// The rows of `sql` with each set of arguments, each query in a read transaction of its own
    /// (as kvstore's `store.fetch` reads), each row's JSON decoded; the same checksum as kvstore's.
    @inline(never)
    func fetch(_ sql: String, _ arguments: [StatementArguments]) throws -> Int {
        var sum = 0
        for argument in arguments {
            sum &+= try pool.read { db in
                let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: argument)
                var (partial, position) = (0, 0)
                while let row = try rows.next() {
                    let data: Data = row[1]
                    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                        throw SetupError("an item is not a JSON object")
                    }
                    partial &+= FeedChecksum.record(position: position, words: (object["words"] as? Int).map(Int64.init),
                                                    published: (object["published"] as? Int).map(Int64.init), keys: object.count)
                    position += 1
                }
                return partial
            }
        }
        return sum
    }

    /// The one integer `sql` gives with each set of arguments, each in a read transaction of its
    /// own; their sum.
    @inline(never)
    func integers(_ sql: String, _ arguments: [StatementArguments]) throws -> Int {
        try arguments.reduce(0) { sum, argument in
            sum &+ (try pool.read { db in try Int.fetchOne(db.cachedStatement(sql: sql), arguments: argument) } ?? -1)
        }
    }

    /// Mark all read, as kvstore's side does it: in one write, the ids of the unread items of the
    /// feed (through the index), then per item `json_set` of `read` and a journal row.
    @inline(never)
    func markAllRead(feed: Int) throws -> Int {
        try pool.write { db in
            let ids = try String.fetchAll(db.cachedStatement(sql: "SELECT id FROM items WHERE \(Self.unreadWhere) ORDER BY id"),
                                          arguments: [FeedDataset.feedID(feed)])
            let update = try db.cachedStatement(sql: "UPDATE items SET data = json_set(data, '$.read', json('true')) WHERE id = ?")
            let journal = try db.cachedStatement(sql: "INSERT INTO journal (kind, id, key, old, new) VALUES (?, ?, 'read', 0, 1)")
            for id in ids {
                try update.execute(arguments: [id])
                try journal.execute(arguments: [FeedDataset.kind, id])
            }
            return ids.count
        }
    }
}
