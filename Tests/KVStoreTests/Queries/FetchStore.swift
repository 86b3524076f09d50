import Foundation
@testable import KVStore

/// A feed reader's store for the query tests: two feeds and eight items whose titles, flags,
/// dates and scores make every sort rule show (case, accents, missing values, int/double ties).
///
/// | id | title  | read | published | score | feed        |
/// |----|--------|------|-----------|-------|-------------|
/// | 01 | apple  | NO   | day 3     | 3     | feed/a      |
/// | 02 | Banana | YES  | day 1     | 2.5   | feed/b      |
/// | 03 | cherry | NO   | day 2     | —     | feed/a      |
/// | 04 | Apple  | NO   | —         | 10    | feed/b      |
/// | 05 | banana | NO   | day 5     | 3     | feed/a      |
/// | 06 | Éclair | YES  | day 4     | 3.0   | feed/z (gone) |
/// | 07 | eclair | NO   | day 6     | -1    | —           |
/// | 08 | —      | NO   | day 0     | 2     | feed/b      |
///
/// Feed a is "Swift Blog", feed b "Databases".
final class FetchStore {
    let fixture: TemporaryStore
    var store: Store { fixture.store }

    init() throws {
        fixture = try TemporaryStore()
        try store.write { txn in
            try txn.insert(["title": "Swift Blog"], as: ref("feed/a"))
            try txn.insert(["title": "Databases"], as: ref("feed/b"))
            let items: [(String, Value?, Bool, Int?, Value?, String?)] = [
                ("01", "apple", false, 3, 3, "feed/a"),
                ("02", "Banana", true, 1, 2.5, "feed/b"),
                ("03", "cherry", false, 2, nil, "feed/a"),
                ("04", "Apple", false, nil, 10, "feed/b"),
                ("05", "banana", false, 5, 3, "feed/a"),
                ("06", "Éclair", true, 4, 3.0, "feed/z"),
                ("07", "eclair", false, 6, -1, nil),
                ("08", nil, false, 0, 2, "feed/b"),
            ]
            for (id, title, read, day, score, feed) in items {
                var values: [String: Value] = ["read": .bool(read)]
                values["title"] = title
                values["published"] = day.map { .date(Self.day($0)) }
                values["score"] = score
                values["feed"] = feed.map { .reference(ref($0)) }
                try txn.insert(values, as: ref("item/" + id))
            }
        }
    }

    /// Midnight UTC of day `n` of January 2024.
    static func day(_ n: Int) -> Date {
        Date(timeIntervalSinceReferenceDate: 725_760_000 + Double(n) * 86_400)
    }

    /// The query of items with the predicate and sort keys written as text.
    func query(_ predicate: String? = nil, sort: [String] = [], limit: Int? = nil, offset: Int = 0) throws -> RecordQuery {
        RecordQuery(
            kind: "item", where: try predicate.map(KeyPathPredicate.init) ?? .true,
            sortedBy: try sort.map(KeyPathSort.init(parsing:)), limit: limit, offset: offset
        )
    }

    /// The ids `fetch` gives for the query, in order.
    func ids(_ predicate: String? = nil, sort: [String] = [], limit: Int? = nil, offset: Int = 0) throws -> [String] {
        try store.fetch(try query(predicate, sort: sort, limit: limit, offset: offset)).map(\.ref.id)
    }

    /// The ids for `query`, and what its execution counted.
    func run(_ query: RecordQuery, keys: [String]? = nil) throws -> (ids: [String], statistics: QueryStatistics) {
        let statistics = QueryStatistics()
        var ids: [String] = []
        try store.read { txn in
            try txn.forEachRecord(matching: query, keys: keys, statistics: statistics) { record in
                ids.append(record.ref.id)
                return true
            }
        }
        return (ids, statistics)
    }
}
