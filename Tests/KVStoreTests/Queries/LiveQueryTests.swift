import Foundation
@testable import KVStore
import Testing
import TestSupport

/// Live results (`Store.observe(_ query:)`): the initial page, then one change set per commit that
/// changes it, checked against a fresh fetch and by applying the change set to the page before.
@Suite struct LiveQueryTests {
    let fixture: FetchStore
    var store: Store { fixture.store }

    init() throws {
        fixture = try FetchStore()
    }

    /// Observes `query`, runs `write`, and returns the change set it caused (checked).
    private func change(
        _ query: RecordQuery, _ write: (WriteTransaction) throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> LiveQueryChange? {
        let (token, changes) = try store.observeCollecting(query)
        defer { token.cancel() }
        let initial = try #require(changes.wait(for: 1).first, sourceLocation: sourceLocation)
        try store.write(write)
        guard let change = changes.wait(for: 2).dropFirst().first else { return nil }
        try check(change, after: initial, for: query, sourceLocation: sourceLocation)
        return change
    }

    /// The change set's results are the query's results now, and applying its positions to the
    /// page before gives them.
    private func check(
        _ change: LiveQueryChange, after previous: LiveQueryChange, for query: RecordQuery, sourceLocation: SourceLocation
    ) throws {
        #expect(change.records == (try store.fetch(query)), sourceLocation: sourceLocation)
        #expect(Self.applying(change, to: previous.ids) == change.ids, sourceLocation: sourceLocation)
        #expect(change.commit == (try store.statistics().journal.lastCommit), sourceLocation: sourceLocation)
    }

    /// `old` with the change set applied as a table view applies batch updates.
    static func applying(_ change: LiveQueryChange, to old: [String]) -> [String] {
        let removed = Set(change.deleted + change.moved.map(\.from))
        var placed: [Int: String] = [:]
        for (position, id) in zip(change.inserted, change.insertedIDs) { placed[position] = id }
        for move in change.moved { placed[move.to] = old[move.from] }
        var staying = old.indices.filter { !removed.contains($0) }.map { old[$0] }.makeIterator()
        let count = old.count - removed.count + placed.count
        return (0 ..< count).compactMap { placed[$0] ?? staying.next() }
    }

    @Test func theFirstDeliveryIsTheCurrentPage() throws {
        let query = try fixture.query("read == NO", sort: ["published:desc"])
        let (token, changes) = try store.observeCollecting(query)
        defer { token.cancel() }
        let initial = try #require(changes.wait(for: 1).first)
        #expect(initial.isInitial)
        #expect(initial.ids == ["07", "05", "01", "03", "08", "04"])
        #expect(initial.records == (try store.fetch(query)))
        #expect(initial.lists == [[], [], [], []])
        #expect(initial.commit == (try store.statistics().journal.lastCommit))
    }

    @Test func aRecordInsertedThatMatchesIsInsertedAtItsPlace() throws {
        let query = try fixture.query("read == NO", sort: ["published:desc"])
        let change = try #require(try change(query) { txn in
            try txn.insert(["read": false, "published": .date(FetchStore.day(4))], as: ref("item/09"))
        })
        #expect(change.lists == [[], [2], [], []])
        #expect(change.insertedIDs == ["09"])
    }

    @Test func recordsThatDoNotMatchChangeNothing() throws {
        let query = try fixture.query("read == NO", sort: ["published:desc"])
        let (token, changes) = try store.observeCollecting(query)
        defer { token.cancel() }
        changes.wait(for: 1)
        try store.write { txn in
            try txn.insert(["read": true], as: ref("item/09"))
            try txn.setValue("Banane", forKey: "title", of: ref("item/02"))
        }
        #expect(changes.staysAt(1))
    }

    @Test func aRecordLeavingThePredicateIsDeleted() throws {
        let query = try fixture.query("read == NO", sort: ["published:desc"])
        let change = try #require(try change(query) { try $0.setValue(true, forKey: "read", of: ref("item/05")) })
        #expect(change.lists == [[1], [], [], []])
        #expect(change.deletedIDs == ["05"])
    }

    @Test func aRecordEnteringThePredicateIsInserted() throws {
        let query = try fixture.query("read == NO", sort: ["published:desc"])
        let change = try #require(try change(query) { try $0.setValue(false, forKey: "read", of: ref("item/02")) })
        #expect(change.insertedIDs == ["02"])
        #expect(change.inserted == [4])  // day 1: after 03 (day 2), before 08 (day 0)
    }

    @Test func aDeletedRecordIsDeleted() throws {
        let query = try fixture.query("read == NO", sort: ["published:desc"])
        let change = try #require(try change(query) { try $0.delete(ref("item/01")) })
        #expect(change.lists == [[2], [], [], []])
    }

    @Test func aChangedRowThatStaysIsUpdated() throws {
        let query = try fixture.query("read == NO", sort: ["published:desc"])
        let change = try #require(try change(query) { try $0.setValue("Cherry", forKey: "title", of: ref("item/03")) })
        #expect(change.lists == [[], [], [3], []])
        #expect(change.updatedIDs == ["03"])
        #expect(change.records[3].values["title"] == "Cherry")
    }

    @Test func aSortKeyChangeMovesTheRow() throws {
        let query = try fixture.query("read == NO", sort: ["published:desc"])
        let change = try #require(try change(query) { try $0.setValue(.date(FetchStore.day(9)), forKey: "published", of: ref("item/03")) })
        #expect(change.lists == [[], [], [], [3, 0]])
        #expect(change.ids == ["03", "07", "05", "01", "08", "04"])
    }

    @Test func aRecordEnteringALimitedPagePushesTheLastOneOut() throws {
        let query = try fixture.query("read == NO", sort: ["published:desc"], limit: 3)
        let change = try #require(try change(query) { txn in
            try txn.insert(["read": false, "published": .date(FetchStore.day(9))], as: ref("item/09"))
        })
        #expect(change.ids == ["09", "07", "05"])
        #expect(change.lists == [[2], [0], [], []])
        #expect(change.deletedIDs == ["01"])
    }

    @Test func aPageAfterAnOffsetShiftsWhenARowBeforeItLeaves() throws {
        let query = try fixture.query("read == NO", sort: ["published:desc"], limit: 2, offset: 1)
        let change = try #require(try change(query) { try $0.setValue(true, forKey: "read", of: ref("item/07")) })
        #expect(change.ids == ["01", "03"])
        #expect(change.deletedIDs == ["05"])
        #expect(change.insertedIDs == ["03"])
    }

    @Test func aChangeToAReferencedRecordEvaluatesItsReadersAgain() throws {
        let query = try fixture.query("feed.title == 'Databases'")
        let change = try #require(try change(query) { try $0.setValue("Databases", forKey: "title", of: ref("feed/a")) })
        #expect(change.insertedIDs == ["01", "03", "05"])
        #expect(change.ids == ["01", "02", "03", "04", "05", "08"])
    }

    @Test func aReferencedRecordInsertedLaterIsFollowed() throws {
        let query = try fixture.query("feed.title == 'Gone'")
        let change = try #require(try change(query) { try $0.insert(["title": "Gone"], as: ref("feed/z")) })
        #expect(change.ids == ["06"])
    }

    @Test func aRowWhoseReferencedRecordChangedIsUpdated() throws {
        let query = try fixture.query(sort: ["feed.title", "title"])
        let change = try #require(try change(query) { try $0.setValue("Swift Blog!", forKey: "title", of: ref("feed/a")) })
        #expect(change.updatedIDs.sorted() == ["01", "03", "05"])
        #expect(change.moved.isEmpty)
    }

    @Test func commitsToOtherKindsDeliverNothing() throws {
        let query = try fixture.query("read == NO")
        let (token, changes) = try store.observeCollecting(query)
        defer { token.cancel() }
        changes.wait(for: 1)
        try store.write { txn in
            try txn.insert(["read": false], as: ref("other/1"))
            try txn.insert(["title": "Unread"], as: ref("feed/c"))
        }
        #expect(changes.staysAt(1))
    }

    @Test func commitsPolledTogetherMakeOneChangeSetLabelledWithTheLast() throws {
        let query = try fixture.query("read == NO", sort: ["published:desc"])
        var (feed, initial) = try LiveQueryFeed.start(query, in: store, options: livePolling)
        for id in ["09", "10", "11"] {
            try store.write { try $0.insert(["read": false, "published": .date(FetchStore.day(7))], as: ref("item/" + id)) }
        }
        try store.write { try $0.delete(ref("item/07")) }
        let change = try #require(try feed.poll())
        #expect(change.insertedIDs == ["09", "10", "11"])
        #expect(change.deletedIDs == ["07"])
        try check(change, after: initial, for: query, sourceLocation: #_sourceLocation)
        #expect(try feed.poll() == nil)
    }

    @Test func aJournalTruncatedPastThePositionIsEvaluatedAgain() throws {
        let query = try fixture.query("read == NO", sort: ["published:desc"])
        var (feed, initial) = try LiveQueryFeed.start(query, in: store, options: livePolling)
        try store.write { try $0.setValue(true, forKey: "read", of: ref("item/01")) }
        try store.write { try $0.setValue(false, forKey: "read", of: ref("item/02")) }
        let last = try store.read { try $0.lastSequence() }
        _ = try store.truncateJournal(before: last, force: true)
        let change = try #require(try feed.poll())
        #expect(change.deletedIDs == ["01"])
        #expect(change.insertedIDs == ["02"])
        try check(change, after: initial, for: query, sourceLocation: #_sourceLocation)
    }

    @Test func cancellingStopsTheThreadAndTheDeliveries() throws {
        let query = try fixture.query("read == NO")
        let changes = LiveChanges()
        let (token, follower) = try store.startObserving(query, options: livePolling, onError: nil) { changes.add($0) }
        changes.wait(for: 1)
        token.cancel()
        #expect(waitUntil { follower.isFinished })
        try store.write { try $0.setValue(true, forKey: "read", of: ref("item/01")) }
        #expect(changes.staysAt(1))
    }

    @Test func aBadQueryIsRefusedBeforeAnythingIsDelivered() throws {
        let query = RecordQuery(kind: "item", where: try KeyPathPredicate("score > $min"))
        #expect(throws: KeyPathPredicateError.self) { _ = try store.observe(query) { _ in } }
        #expect(throws: RecordQueryError.self) { _ = try store.observe(RecordQuery(kind: "item", limit: -1)) { _ in } }
    }

    @Test func theAsyncSequenceDeliversTheSame() async throws {
        let query = try fixture.query("read == NO", sort: ["published:desc"], limit: 2)
        var changes = store.liveResults(of: query, options: livePolling).makeAsyncIterator()
        let initial = try #require(try await changes.next())
        #expect(initial.ids == ["07", "05"])
        try await store.write { try $0.setValue(.date(FetchStore.day(8)), forKey: "published", of: ref("item/01")) }
        let change = try #require(try await changes.next())
        #expect(change.ids == ["01", "07"])
        #expect(change.lists == [[1], [0], [], []])
    }

    @Test func theAsyncSequenceEndsWhenItsTaskIsCancelled() async throws {
        let delivered = LiveChanges()
        let task = Task { [store] in
            for try await change in store.liveResults(of: RecordQuery(kind: "item"), options: livePolling) { delivered.add(change) }
        }
        for _ in 0 ..< 12_000 where delivered.all.isEmpty { try await Task.sleep(for: .milliseconds(5)) }  // no thread blocked
        task.cancel()
        try await task.value  // returns: the sequence ended
        #expect(delivered.all.count == 1)
    }
}
