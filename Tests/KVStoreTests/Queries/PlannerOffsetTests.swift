import Foundation
import Testing
import TestSupport
@testable import KVStore

/// The offset of an exact plan whose candidates come in the query's order is skipped on the
/// index's entries alone: page 20 looks up the records of its page, not those before it.
@Suite("planner: an exact ordered plan skips its offset on index entries")
struct PlannerOffsetTests {
    /// 90 items of three feeds, a third read, `published` unique; in `item` (indexed) and `plain`.
    static func store() throws -> TemporaryStore {
        let t = try indexedStore([indexOn("feed", "read", "published"), indexOn("tags")])
        try t.store.write { txn in
            for n in 0 ..< 90 {
                let values: [String: Value] = ["feed": .reference(ref("feed/\(n % 3)")), "read": .bool(n % 5 == 1),
                                               "published": .int(Int64((n * 37) % 90)), "tags": n % 4 == 0 ? ["a", "b"] : ["c"]]
                try txn.insert(values, as: ref("item/\(n)"))
                try txn.insert(values, as: ref("plain/\(n)"))
            }
        }
        return t
    }

    /// The page's ids (checked against the plain kind's) and how many records the query looked up.
    static func page(_ t: TemporaryStore, _ text: String, sort: String? = "published:desc", limit: Int? = 5, offset: Int,
                     sourceLocation: SourceLocation = #_sourceLocation) throws -> (ids: [String], lookedUp: Int) {
        let query = RecordQuery(kind: "item", where: try KeyPathPredicate(text), variables: ["feed": .reference(ref("feed/0")), "other": .reference(ref("feed/1"))],
                                sortedBy: try sort.map { [try KeyPathSort(parsing: $0)] } ?? [], limit: limit, offset: offset)
        let run = try t.runAgainstPlain(query, sourceLocation: sourceLocation)
        return (run.ids, run.statistics.recordsLookedUp)
    }

    /// Feed 0's 30 items, 6 of them read.
    static let unread = 24

    @Test("the unread screen's pages look up their own records only")
    func unreadPages() throws {
        let t = try Self.store()
        for offset in [0, 1, 4, 17, 19, 23] {
            let page = try Self.page(t, "feed == $feed AND read == NO", offset: offset)
            #expect(page.ids.count == min(5, Self.unread - offset))
            #expect(page.lookedUp == page.ids.count, "offset \(offset)")
        }
        #expect(try Self.page(t, "feed == $feed AND read == NO", sort: "published", offset: 12).lookedUp == 5)
    }

    @Test("an offset at or past the end gives nothing and looks nothing up")
    func pastTheEnd() throws {
        let t = try Self.store()
        for offset in [Self.unread, Self.unread + 1, 1_000] {
            #expect(try Self.page(t, "feed == $feed AND read == NO", offset: offset) == ([], 0))
            #expect(try Self.page(t, "feed == $feed AND read == NO", limit: nil, offset: offset) == ([], 0))
        }
    }

    @Test("plans that re-check or order their candidates keep the offset after the filter", arguments: [
        "feed == $feed AND read == NO AND published > 30", "feed == $feed OR tags == 'a'", "tags == 'a'",
        "feed IN {$feed, $other} AND read == NO", "feed == $feed AND read == NO AND NOT published BETWEEN {10, 20}",
    ])
    func otherPlans(text: String) throws {
        let t = try Self.store()
        for offset in [0, 3, 11, 40, 200] {
            for sort in ["published:desc", "published", nil] as [String?] {
                _ = try Self.page(t, text, sort: sort, offset: offset)
                _ = try Self.page(t, text, sort: sort, limit: nil, offset: offset)
            }
        }
    }

    @Test("deleted records are neither skipped nor given")
    func deletions() throws {
        let t = try Self.store()
        try t.store.write { txn in
            for n in stride(from: 0, to: 90, by: 7) {
                try txn.delete(ref("item/\(n)"))
                try txn.delete(ref("plain/\(n)"))
            }
        }
        for offset in [0, 2, 9, 15] {
            let page = try Self.page(t, "feed == $feed AND read == NO", offset: offset)
            #expect(page.lookedUp == page.ids.count)
        }
    }
}
