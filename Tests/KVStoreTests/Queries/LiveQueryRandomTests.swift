import Foundation
@testable import KVStore
import Testing
import TestSupport

/// Many rows (several chunks of the maintained order) and random commits: after each, the live
/// page equals a fresh fetch, and the change set applied to the page before gives it.
@Suite struct LiveQueryRandomTests {
    @Test(arguments: [(nil, 0), (50, 0), (40, 900)] as [(Int?, Int)])
    func randomCommitsKeepThePageEqualToAFetch(limit: Int?, offset: Int) throws {
        let fixture = try TemporaryStore()
        let store = fixture.store
        var random = SeededRandom(15)
        try store.write { txn in
            for n in 0 ..< 3_000 { try txn.insert(["n": .int(Int64(random.next() % 1_000)), "on": .bool(n % 3 != 0)], as: ref("row/\(n)")) }
        }
        let query = RecordQuery(
            kind: "row", where: try KeyPathPredicate("on == YES"), sortedBy: [try KeyPathSort(parsing: "n:desc")],
            limit: limit, offset: offset)
        var (feed, previous) = try LiveQueryFeed.start(query, in: store, options: livePolling)
        for _ in 0 ..< 60 {
            try store.write { txn in
                for _ in 0 ..< 1 + random.next() % 4 {
                    let row = ref("row/\(random.next() % 3_200)")
                    switch random.next() % 4 {
                    case 0: try? txn.delete(row)
                    case 1: try? txn.setValue(.bool(random.next() % 2 == 0), forKey: "on", of: row)
                    default: try? txn.setValue(.int(Int64(random.next() % 1_000)), forKey: "n", of: row)
                    }
                }
            }
            guard let change = try feed.poll() else {
                #expect(previous.records == (try store.fetch(query)))
                continue
            }
            #expect(change.records == (try store.fetch(query)))
            #expect(LiveQueryTests.applying(change, to: previous.ids) == change.ids)
            previous = change
        }
    }
}
