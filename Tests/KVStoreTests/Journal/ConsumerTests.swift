import Foundation
import Testing
import TestSupport
@testable import KVStore

/// Matches a ``JournalRetentionError`` with the given code, for `#expect(performing:throws:)`.
func retentionError(_ expected: JournalRetentionError.Code) -> @Sendable (any Error) -> Bool {
    { ($0 as? JournalRetentionError)?.code == expected }
}

/// Durable consumers: named cursors stored in the store, read after, committed, reset, listed.
@Suite struct ConsumerTests {
    let t: TemporaryStore
    let ada = ref("person/ada")

    /// Five entries: 1 insert, 2…5 settings.
    init() throws {
        t = try TemporaryStore()
        try t.store.insert(["name": "Ada"], as: ada)
        for age in 1...4 { try t.store.setValue(.int(Int64(age)), forKey: "age", of: ada) }
    }

    @Test func aConsumerReadsAfterItsCursorAndCommitMovesIt() throws {
        let consumer = try t.store.registerConsumer(named: "indexer", startingAfter: 0)
        #expect(try consumer.cursor() == 0)
        #expect(try consumer.entries(limit: 2).map(\.sequence) == [1, 2])
        #expect(try consumer.entries(limit: 2).map(\.sequence) == [1, 2], "reading does not move the cursor")
        try consumer.commit(through: 2)
        #expect(try consumer.entries().map(\.sequence) == [3, 4, 5])
        try consumer.commit(through: 2)  // the same cursor again: no change, no error
        try consumer.commit(through: 5)
        #expect(try consumer.entries().isEmpty)
        try t.store.setValue(9, forKey: "age", of: ada)
        #expect(try consumer.entries().map(\.sequence) == [6])
    }

    @Test func aNewConsumerStartsAtTheLastSequenceByDefault() throws {
        let consumer = try t.store.registerConsumer(named: "mailer")
        #expect(try consumer.cursor() == 5)
        #expect(try consumer.entries().isEmpty)
        try t.store.setValue("Augusta", forKey: "name", of: ada)
        #expect(try consumer.entries().map(\.keyPath) == ["name"])
    }

    @Test func theCursorIsStoredAndSurvivesReopening() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        do {
            let store = try Store(path: path)
            try store.insert(["a": 1], as: ada)
            try store.setValue(2, forKey: "a", of: ada)
            try store.registerConsumer(named: "replica", startingAfter: 0).commit(through: 1)
        }
        let store = try Store(path: path)
        let consumer = try store.consumer(named: "replica")
        #expect(try consumer.cursor() == 1)
        #expect(try consumer.entries().map(\.sequence) == [2])
        let raw = try store.read { txn in
            try txn.transaction.value(forKey: Array("consumer/replica".utf8), in: txn.databases.meta)
        }
        #expect(raw == [1, 0, 0, 0, 0, 0, 0, 0], "meta consumer/<name> holds the cursor as UInt64 LE")
    }

    @Test func consumersAreListedInNameOrderWithCursorAndLag() throws {
        try t.store.registerConsumer(named: "b-mailer", startingAfter: 3)
        try t.store.registerConsumer(named: "a-indexer", startingAfter: 0)
        #expect(try t.store.consumers() == [
            .init(name: "a-indexer", cursor: 0, lag: 5, isExpired: false),
            .init(name: "b-mailer", cursor: 3, lag: 2, isExpired: false),
        ])
        #expect(try t.store.consumer(named: "b-mailer").status().lag == 2)
        try t.store.consumer(named: "a-indexer").unregister()
        #expect(try t.store.consumers().map(\.name) == ["b-mailer"])
    }

    @Test func commitRefusesGoingBackwardsOrPastTheLastSequence() throws {
        let consumer = try t.store.registerConsumer(named: "indexer", startingAfter: 3)
        #expect(performing: { try consumer.commit(through: 2) }, throws: retentionError(.invalidCursor))
        #expect(performing: { try consumer.commit(through: 6) }, throws: retentionError(.invalidCursor))
        #expect(try consumer.cursor() == 3)
        try consumer.reset(to: 1)
        #expect(try consumer.cursor() == 1)
        #expect(performing: { try consumer.reset(to: 6) }, throws: retentionError(.invalidCursor))
    }

    @Test func registeringTwiceOrPastTheEndIsRefused() throws {
        try t.store.registerConsumer(named: "indexer", startingAfter: 2)
        #expect(performing: { try t.store.registerConsumer(named: "indexer") }, throws: retentionError(.consumerExists))
        #expect(try t.store.consumer(named: "indexer").cursor() == 2)
        #expect(performing: { try t.store.registerConsumer(named: "late", startingAfter: 6) }, throws: retentionError(.invalidCursor))
        #expect(try t.store.consumers().map(\.name) == ["indexer"])
    }

    @Test func anUnknownConsumerIsAClearError() throws {
        #expect(performing: { try t.store.consumer(named: "nobody") }, throws: retentionError(.unknownConsumer))
        let consumer = try t.store.registerConsumer(named: "gone")
        try consumer.unregister()
        #expect(performing: { try consumer.entries() }, throws: retentionError(.unknownConsumer))
        #expect(performing: { try consumer.commit(through: 5) }, throws: retentionError(.unknownConsumer))
        #expect(performing: { try consumer.unregister() }, throws: retentionError(.unknownConsumer))
        let error = try #require(throws: JournalRetentionError.self) { try t.store.consumer(named: "nobody") }
        #expect(error.description == "\(t.path): no consumer named 'nobody' is registered")
    }

    @Test(arguments: ["", "has space", "tab\there", "new\nline", "nul\u{0}", String(repeating: "x", count: 129)])
    func badNamesAreRefused(name: String) throws {
        #expect(performing: { try t.store.registerConsumer(named: name) }, throws: retentionError(.invalidConsumerName))
        #expect(performing: { try t.store.consumer(named: name) }, throws: retentionError(.invalidConsumerName))
        #expect(try t.store.consumers().isEmpty)
        let error = try #require(throws: JournalRetentionError.self) { try t.store.registerConsumer(named: name) }
        #expect(error.description.contains("invalid consumer name") && !error.description.contains("\n"))
    }

    @Test(arguments: ["indexer", "replica@host:2", "é-ünïcode", String(repeating: "x", count: 128)])
    func printableNamesAreAccepted(name: String) throws {
        try t.store.registerConsumer(named: name)
        #expect(try t.store.consumers().map(\.name) == [name])
    }
}
