import Foundation
import Testing
@testable import KVStore

/// `truncateJournal(before:force:)`: drops old entries, held back by consumers unless forced.
@Suite struct JournalTruncationTests {
    let t: TemporaryStore
    let ada = ref("person/ada")

    /// Ten entries: 1 insert, 2…10 settings.
    init() throws {
        t = try TemporaryStore()
        try t.store.insert(["name": "Ada"], as: ada)
        for age in 1...9 { try t.store.setValue(.int(Int64(age)), forKey: "age", of: ada) }
    }

    private func range() throws -> (first: UInt64?, last: UInt64) {
        try t.store.read { (try $0.firstSequence(), try $0.lastSequence()) }
    }

    @Test func truncationDeletesEntriesBeforeTheSequenceAndKeepsTheLastSequence() throws {
        #expect(try t.store.truncateJournal(before: 4) == 3)
        #expect(try t.store.journalEntries().map(\.sequence) == Array(4...10))
        #expect(try range() == (4, 10))
        #expect(try t.store.truncateJournal(before: 2) == 0, "before the first entry: nothing to do")
        #expect(try t.store.truncateJournal(before: 11) == 7)
        #expect(try t.store.journalEntries().isEmpty)
        #expect(try range() == (nil, 10))
        try t.store.setValue(10, forKey: "age", of: ada)
        #expect(try t.store.journalEntries().map(\.sequence) == [11], "sequences are never reused")
    }

    @Test func truncationIsNotJournaledAndKeepsTheData() throws {
        let before = try t.store.record(ada)
        try t.store.truncateJournal(before: 11)
        #expect(try t.store.record(ada) == before)
        #expect(try t.store.journalEntries().isEmpty)
        try t.store.setValue(0, forKey: "age", of: ada)
        #expect(try t.store.journalEntries().map(\.commitID) == [11], "commit ids go on too")
    }

    @Test func aTruncationPointPastTheEndIsRefused() throws {
        #expect(performing: { try t.store.truncateJournal(before: 12) }, throws: retentionError(.invalidTruncationPoint))
        #expect(try t.store.journalEntries().count == 10)
        let error = try #require(throws: JournalRetentionError.self) { try t.store.truncateJournal(before: 12) }
        #expect(error.description.contains("its last sequence is 10"))
    }

    @Test func aConsumerHoldsTruncationBackUnlessForced() throws {
        try t.store.registerConsumer(named: "fast", startingAfter: 8)
        let slow = try t.store.registerConsumer(named: "slow", startingAfter: 3)
        #expect(try t.store.truncateJournal(before: 4) == 3, "everything slow has processed may go")
        let error = try #require(throws: JournalRetentionError.self) { try t.store.truncateJournal(before: 6) }
        #expect(error.code == .truncationBlocked && error.consumer == "slow")
        #expect(error.description.contains("consumer 'slow'") && error.description.contains("cursor is at 3"))
        #expect(try range() == (4, 10), "a refused truncation deletes nothing")
        try slow.commit(through: 5)
        #expect(try t.store.truncateJournal(before: 6) == 2)
        #expect(performing: { try t.store.truncateJournal(before: 10) }, throws: retentionError(.truncationBlocked))
        #expect(try t.store.truncateJournal(before: 10, force: true) == 4)
        #expect(try range() == (10, 10))
    }

    @Test func aConsumerBehindTheTruncationPointGetsCursorExpired() throws {
        let consumer = try t.store.registerConsumer(named: "slow", startingAfter: 2)
        try t.store.truncateJournal(before: 6, force: true)
        #expect(try t.store.consumers() == [.init(name: "slow", cursor: 2, lag: 8, isExpired: true)])
        let error = try #require(throws: JournalRetentionError.self) { try consumer.entries() }
        #expect(error.code == .cursorExpired && error.consumer == "slow")
        #expect(error.description.contains("cursor expired") && error.description.contains("3 through 5 are gone"))
        #expect(performing: { try consumer.reset(to: 4) }, throws: retentionError(.cursorExpired))
        #expect(performing: { try t.store.registerConsumer(named: "new", startingAfter: 0) }, throws: retentionError(.cursorExpired))
        try consumer.reset(to: 5)  // rebuilt by other means: continue from the journal's first entry
        #expect(try consumer.entries().first?.sequence == 6)
    }

    @Test func anEphemeralCursorBehindTheTruncationPointExpiresToo() throws {
        try t.store.truncateJournal(before: 5)
        #expect(performing: { try t.store.read { try $0.journalEntries(after: 2) } }, throws: retentionError(.cursorExpired))
        #expect(try t.store.read { try $0.journalEntries(after: 4) }.first?.sequence == 5)
        #expect(try t.store.read { try $0.journalEntries(after: 10) }.isEmpty)
        try t.store.truncateJournal(before: 11)
        #expect(performing: { try t.store.read { try $0.journalEntries(after: 9) } }, throws: retentionError(.cursorExpired))
        #expect(try t.store.read { try $0.journalEntries(after: 10) }.isEmpty)
    }

    @Test func aCommittingConsumerCanCatchUpPastATruncation() throws {
        let consumer = try t.store.registerConsumer(named: "slow", startingAfter: 1)
        try t.store.truncateJournal(before: 5, force: true)
        try consumer.commit(through: 7)
        #expect(try consumer.status() == .init(name: "slow", cursor: 7, lag: 3, isExpired: false))
    }
}
