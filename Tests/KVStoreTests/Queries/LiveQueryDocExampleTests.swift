import Foundation
import KVStore  // not @testable: the examples use the public API only
import Testing
import TestSupport

/// The examples of the Querying article's "Live results" section, run. If one stops compiling, fix
/// the text it came from too.
@Suite("live queries: doc examples")
struct LiveQueryDocExampleTests {
    let t: TemporaryStore
    var store: Store { t.store }

    init() throws {
        t = try TemporaryStore()
        try t.store.write { txn in
            for day in 0 ..< 80 {
                try txn.insert([
                    "published": .date(Date(timeIntervalSinceReferenceDate: Double(day) * 86_400)), "read": .bool(day % 4 == 0),
                ], as: RecordRef("item/\(day)"))
            }
        }
    }

    @Test("observe: the page, then a change set when an item is marked read")
    func observe() throws {
        let printed = Failures()  // a thread-safe list of the lines printed
        @Sendable func print(_ items: Any...) { printed.add(items.map { "\($0)" }.joined(separator: " ")) }

        let unread = RecordQuery(
            kind: "item", where: try KeyPathPredicate("read == NO"),
            sortedBy: [try KeyPathSort(parsing: "published:desc")], limit: 50
        )
        let token = try store.observe(unread) { change in
            if change.isInitial { print("showing", change.ids) }
            else { print("commit", change.commit, "inserted", change.inserted, "deleted", change.deleted, "moved", change.moved) }
        }
        #expect(waitUntil { printed.all.count == 1 })
        try store.write { try $0.setValue(true, forKey: "read", of: RecordRef("item/79")) }
        #expect(waitUntil { printed.all.count == 2 })
        token.cancel()
        let commit = try store.statistics().journal.lastCommit
        #expect(printed.all.last == "commit \(commit) inserted [49] deleted [0] moved []")
    }

    @Test("liveResults: the same as an AsyncSequence")
    func liveResults() async throws {
        let unread = RecordQuery(kind: "item", where: try KeyPathPredicate("read == NO"), limit: 3)
        var ids: [[String]] = []
        for try await change in store.liveResults(of: unread) {
            ids.append(change.ids)
            if ids.count == 1 { try await store.write { try $0.delete(RecordRef("item/1")) } } else { break }
        }
        #expect(ids == [["1", "10", "11"], ["10", "11", "13"]])
    }
}
