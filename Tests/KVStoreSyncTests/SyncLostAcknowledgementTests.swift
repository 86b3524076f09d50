import Foundation
@_spi(Sync) import KVStore
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    /// Uploads whose acknowledgement was lost (the hub committed, the store's cursor did not
    /// move), retried after the store changed more: the retry must take effect once, and never
    /// read as a store restored or copied.
    @Suite struct SyncLostAcknowledgementTests {
        /// An insertion uploaded, its acknowledgement lost, then a key of the record set: the
        /// insertion goes up again, with the same content as the first time.
        @Test func anInsertionRetriedAfterALaterSetIsTheSameChange() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(2)
            let engines = try (0..<2).map { try stores.engine($0, database) }
            for engine in engines { _ = try await engine.sync() }
            let note = try RecordRef("note/1")
            try await stores[0].write { try $0.insert(["title": "a", "body": "b"], as: note) }
            try await Self.syncLosingAcknowledgement(engines[0])
            try await stores[0].write { try $0.setValue("c", forKey: "title", of: note) }
            _ = try await engines[0].sync()
            _ = try await engines[1].sync()
            #expect(try stores.records(1) == [note: ["title": "c", "body": "b"]])
        }

        /// Three stores make random changes (insertions, deletions, keys and key paths set and
        /// removed, arrays edited), sync in random orders, and sometimes lose an upload's
        /// acknowledgement: all end with the same records.
        @Test(arguments: [21, 22, 23] as [UInt64]) func storesConvergeThroughLostAcknowledgements(seed: UInt64) async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(3)
            let engines = try (0..<3).map { try stores.engine($0, database, batchSize: 3) }
            for engine in engines { _ = try await engine.sync() }
            var random = SeededRandom(seed)
            for _ in 0..<15 {
                let index = Int(random.next() % 3)
                for _ in 0 ..< 1 + random.next() % 3 { try Self.randomWrite(to: stores[index], &random) }
                if random.next() % 2 == 0 {
                    try await Self.syncLosingAcknowledgement(engines[index])
                } else {
                    _ = try await engines[index].sync()
                }
            }
            for _ in 0..<2 {
                for index in 0..<3 { _ = try await engines[index].sync() }
            }
            let first = try stores.records(0)
            #expect(!first.isEmpty)
            #expect(try stores.records(1) == first)
            #expect(try stores.records(2) == first)
        }

        /// Syncs, then puts the upload cursor back where it was: the hub committed the uploads,
        /// the store never heard.
        static func syncLosingAcknowledgement(_ engine: SyncEngine) async throws {
            let before = try #require(try await engine.store.read { try $0.syncCursors() })
            _ = try await engine.sync()
            try await engine.store.write { txn in
                var cursors = try #require(try txn.syncCursors())
                cursors.uploadedThrough = before.uploadedThrough
                try txn.setSyncCursors(cursors)
            }
        }

        /// One local change of one of three notes: its insertion (when absent), else its
        /// deletion, a key removed or set, a key path set, or an array appended to.
        static func randomWrite(to store: Store, _ random: inout SeededRandom) throws {
            let note = try RecordRef("note/\(random.next() % 3)")
            let key = random.next() % 2 == 0 ? "a" : "b", operation = random.next() % 6
            let value: Value = random.next() % 2 == 0 ? .int(Int64(random.next() % 4)) : .string("s\(random.next() % 3)")
            let inserted: [String: Value] = random.next() % 2 == 0 ? [key: value] : [key: value, "tags": ["t"]]
            try store.write { txn in
                guard let record = try txn.record(note) else { return try txn.insert(inserted, as: note) }
                switch (operation, record["meta"], record["tags"]) {
                case (0, _, _): try txn.delete(note)
                case (1, _, _): try txn.removeValue(forKey: key, of: note)
                case (2, .dictionary?, _): try txn.setValue(value, forKeyPath: "meta.x", of: note)
                case (2, _, _): try txn.setValue(["x": value], forKey: "meta", of: note)
                case (3, _, .array?): try txn.mutableArray(forKey: "tags", of: note).append(value)
                default: try txn.setValue(value, forKey: key, of: note)
                }
            }
        }
    }
}
