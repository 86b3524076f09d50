import Foundation
import Testing
@testable import KVStore

/// Replaying a store's journal into a new store, through a sequence or a time.
@Suite struct ReplayTests {
    let source: TemporaryStore

    init() throws {
        source = try TemporaryStore()
    }

    /// Runs `changes`, noting the records and the last sequence after each.
    func history(_ changes: [(WriteTransaction) throws -> Void]) throws -> [(sequence: UInt64, records: [Record], time: Date)] {
        try changes.map { change in
            try source.store.write(change)
            let last = try #require(try source.store.journalEntries().last)
            return (last.sequence, try allRecords(source.store), last.timestamp)
        }
    }

    var changes: [(WriteTransaction) throws -> Void] {
        [
            { try $0.insert(["name": "Ada", "tags": ["a"]], as: ref("person/ada")) },
            { try $0.setValue("Ada L.", forKey: "name", of: ref("person/ada")); try $0.insert(["n": 1], as: ref("note/1")) },
            { try $0.mutableArray(forKey: "tags", of: ref("person/ada")).append("b") },
            { try $0.delete(ref("note/1")) },
        ]
    }

    @Test func replayUntilASequenceGivesTheRecordsAsTheyWereThen() throws {
        for point in try history(changes) {
            let copy = try TemporaryStore()
            let replayed = try source.store.replayJournal(into: copy.store, until: .sequence(point.sequence))
            #expect(replayed.through == point.sequence)
            #expect(try allRecords(copy.store) == point.records)
            #expect(try copy.store.journalEntries().allSatisfy { $0.origin == nil })
        }
    }

    @Test func replayUntilATimeStopsBeforeTheFirstLaterEntry() throws {
        var points: [(sequence: UInt64, records: [Record], time: Date)] = []
        for change in changes {
            points += try history([change])
            Thread.sleep(forTimeInterval: 0.002)  // distinct commit times
        }
        for point in points {
            let copy = try TemporaryStore()
            try source.store.replayJournal(into: copy.store, until: .time(point.time))
            #expect(try allRecords(copy.store) == point.records)
        }
        let none = try TemporaryStore()
        #expect(try source.store.replayJournal(into: none.store, until: .time(points[0].time - 1)).entries == 0)
    }

    @Test func theWholeJournalGivesTheSameRecordsAndCommits() throws {
        try fillWithEveryChange(source.store)
        let copy = try TemporaryStore()
        try source.store.replayJournal(into: copy.store)
        #expect(try allRecords(copy.store) == allRecords(source.store))
        #expect(try copy.store.journalEntries().map(\.commitID) == source.store.journalEntries().map(\.commitID))
    }

    @Test func aTruncatedJournalOrANonEmptyTargetIsRefused() throws {
        _ = try history(changes)
        let used = try TemporaryStore()
        try used.store.insert(["x": 1], as: ref("a/b"))
        #expect(performing: { try source.store.replayJournal(into: used.store) }, throws: applyError(.targetNotEmpty))
        try source.store.environment.write { txn in
            _ = try txn.delete(StoreLayout.sequenceKey(1), in: source.store.databases.journal)
        }
        let copy = try TemporaryStore()
        #expect(performing: { try source.store.replayJournal(into: copy.store) }, throws: applyError(.journalTruncated, "starts at sequence 2"))
        #expect(try allRecords(copy.store).isEmpty)
    }
}
