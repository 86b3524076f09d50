import Foundation
import Testing
import TestSupport
@_spi(Sync) @testable import KVStore

/// ``WriteTransaction/applyRemote(_:hubNow:)``: the per-key last-writer-wins rule, how the record
/// is written to match, the journal, and the clock.
@Suite struct ApplyRemoteTests {
    let t: TemporaryStore
    var store: Store { t.store }
    let note = ref("note/1")
    let other = UUID(), third = UUID()
    /// A wall time a little in the past: within the tolerance, adopted by the clock.
    let base = nowMilliseconds() - 100_000

    init() throws {
        t = try .syncing()
    }

    @Test func theGreaterStampWinsEachKeyInEitherOrder() throws {
        let insert = remote(.insert, note, nil, ["title": "a", "body": "b"], at: base, from: other)
        let later = remote(.set, note, "title", "later", at: base + 2, from: third)
        let earlier = remote(.set, note, "title", "earlier", at: base + 1, from: other)
        let report = try store.applyRemote([insert, later, earlier])
        #expect(report.applied == 2 && report.superseded == 1 && report.aheadOfClock.isEmpty)
        #expect(try store.record(note) == ["title": "later", "body": "b"])
        // Equal times: the store with the greater id wins, whichever comes first.
        let (low, high) = other.bytesPrecede(third) ? (other, third) : (third, other)
        let fromLow = remote(.set, note, "body", "low", at: base + 5, from: low), fromHigh = remote(.set, note, "body", "high", at: base + 5, from: high)
        try store.applyRemote([fromHigh, fromLow])
        #expect(try store.record(note)?["body"] == "high")
        #expect(try store.verify().isHealthy)
    }

    @Test func theJournalCarriesTheOriginAndTheRemoteStamp() throws {
        let insert = remote(.insert, note, nil, ["title": "a"], at: base, from: other, sequence: 7)
        let set = remote(.set, note, "tags", ["x"], at: base + 1, from: third, sequence: 3)
        try store.applyRemote([insert, set])
        let entries = try store.journalEntries().suffix(2)
        #expect(entries.map(\.origin) == [insert.origin, set.origin])
        #expect(entries.map { $0.syncStamp(localStore: store.id) } == [insert.syncStamp, set.syncStamp])
        #expect(entries.map(\.change) == [.recordInserted, .setting])
        // Applied entries are never uploaded again.
        #expect(try store.read { try $0.localChanges(after: 0) }.changes.isEmpty)
    }

    @Test func theSameBatchTwiceChangesNothingTheSecondTime() throws {
        let batch = [
            remote(.insert, note, nil, ["title": "a", "n": 1], at: base, from: other),
            remote(.set, note, "title", "b", at: base + 1, from: third),
            remote(.remove, note, "n", at: base + 2, from: other),
            remote(.delete, ref("note/2"), at: base + 3, from: third),
        ]
        #expect(try store.applyRemote(batch).applied == 4)
        let (sequence, records, sync) = (try store.lastSequence, try store.allRecords(), try store.syncDatabase())
        let again = try store.applyRemote(batch.reversed())
        #expect(again.applied == 0 && again.superseded == 4)
        #expect(try store.lastSequence == sequence && store.allRecords() == records && store.syncDatabase() == sync)
    }

    @Test func aDeletionWinsOverOlderSetsAndLosesToNewerOnes() throws {
        try store.applyRemote([
            remote(.insert, note, nil, ["title": "a", "body": "b"], at: base, from: other),
            remote(.set, note, "body", "kept", at: base + 5, from: third),
            remote(.delete, note, at: base + 3, from: third),
        ])
        // The deletion removed what was set before it; the later set keeps the record.
        #expect(try store.record(note) == ["body": "kept"])
        // A set older than the deletion arriving late is dead on arrival.
        #expect(try store.applyRemote([remote(.set, note, "title", "late", at: base + 2, from: other)]).applied == 0)
        #expect(try store.record(note) == ["body": "kept"])
        // A newer deletion removes the record.
        try store.applyRemote([remote(.delete, note, at: base + 6, from: other)])
        #expect(try store.record(note) == nil)
        // A newer insertion brings it back, with only its keys.
        try store.applyRemote([remote(.insert, note, nil, ["title": "new"], at: base + 7, from: third)])
        #expect(try store.record(note) == ["title": "new"])
        #expect(try store.verify().isHealthy)
    }

    @Test func aSetOnAMissingRecordMakesItExistOnlyWhileTheKeyIsPresent() throws {
        try store.applyRemote([remote(.set, note, "title", "a", at: base, from: other)])
        #expect(try store.record(note) == ["title": "a"])
        // The record was never inserted: removing its only key leaves nothing.
        try store.applyRemote([remote(.remove, note, "title", at: base + 1, from: third)])
        #expect(try store.record(note) == nil)
        #expect(try store.verify().isHealthy)
    }

    @Test func aNullInAnInsertedRecordIsNoKey() throws {
        try store.applyRemote([remote(.insert, note, nil, ["a": .null, "b": 1], at: base, from: other)])
        #expect(try store.record(note) == ["b": 1])
        #expect(try store.read { try $0.syncState(of: note) }.keys.keys.sorted() == ["b"])
        #expect(try store.verify().isHealthy)
    }

    @Test func aLocalChangeAfterARemoteOneIsStampedAfterIt() throws {
        try store.applyRemote([remote(.insert, note, nil, ["title": "a"], at: base, from: other)])
        try store.write { try $0.mutableArray(forKey: "tags", of: note).append("x") }
        let local = try store.read { try $0.localChanges(after: 0) }.changes
        #expect(local.count == 1 && local[0].change == .set && local[0].key == "tags" && local[0].value == ["x"])
        #expect(local[0].syncStamp > SyncStamp(time: HybridTime(wall: base, counter: 0), store: other))
    }

    @Test func aKindTheStoreDoesNotSyncIsRefused() throws {
        let before = try store.lastSequence
        #expect {
            try store.applyRemote([remote(.insert, note, nil, ["a": 1], at: base, from: other), remote(.insert, ref("person/1"), nil, ["a": 1], at: base + 1, from: third, sequence: 12)])
        } throws: { error in
            let error = try #require(error as? SyncStateError)
            return error.code == .kindNotSynced && error.change?.origin.sequence == 12
                && error.message.contains("insert person/1 (origin \(third.lowercasedText)#12) refused: this store does not sync kind 'person'")
        }
        #expect(try store.lastSequence == before && store.record(note) == nil)
    }

    @Test(arguments: [
        (remote(.set, ref("note/1"), "title", nil, at: 1, from: UUID()), "a set without a value"),
        (remote(.set, ref("note/1"), "title", .null, at: 1, from: UUID()), "a set without a value"),
        (remote(.remove, ref("note/1"), nil, at: 1, from: UUID()), "no key"),
        (remote(.insert, ref("note/1"), nil, ["x"], at: 1, from: UUID()), "the inserted record is not a dictionary"),
        (remote(.insert, ref("note/1"), "k", [:], at: 1, from: UUID()), "a record's insertion with a key"),
        (remote(.delete, ref("note/1"), nil, 1, at: 1, from: UUID()), "a deletion with a value"),
        (remote(.set, ref("note/1"), "a.b", 1, at: 1, from: UUID()), "a record's key must be non-empty"),
    ])
    func aMalformedChangeIsRefused(change: RemoteChange, problem: String) throws {
        #expect(performing: { try store.applyRemote([change]) }, throws: { ($0 as? SyncStateError)?.code == .refused && "\($0)".contains(problem) })
        #expect(try store.lastSequence == 0)
    }
}
