import Foundation
@_spi(Sync) import KVStore
import KVStoreSync
import Logging
import PostgresNIO
import Testing
import TestSupport

extension HubTests {
    /// Whole-store scenarios through the engine: commit order, tombstones, a long offline spell.
    @Suite struct SyncScenarioTests {
        /// A hub transaction that inserts first and commits last: a store syncing while it is open
        /// gets neither it nor the later one, and both once it committed — never skipped.
        @Test func aTransactionThatInsertsFirstAndCommitsLastIsApplied() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(2)
            let (a, b) = try (stores.engine(0, database), stores.engine(1, database))
            _ = try await b.sync()
            let slow = try await database.rawConnection()
            let logger = Logger(label: "test")
            let early = UUID()
            // An open transaction holds back every download from the shared server: close the
            // connection (ending it) on every path.
            do {
                try await slow.query("BEGIN", logger: logger)
                try await slow.query(PostgresQuery(unsafeSQL: """
                    INSERT INTO \(database.schema).changes (origin, origin_seq, stamp_wall, stamp_counter, kind, record_id, key, change, value)
                    VALUES ('\(early)', 1, \(UInt64(Date().timeIntervalSince1970 * 1000)), 0, 'note', 'early', 'title', 'set', '"first in"')
                    """), logger: logger)
                try stores.writeNotes(0, count: 1)
                _ = try await a.sync()
                let whileOpen = try await b.sync()
                #expect(whileOpen.downloaded == 0)
                try await slow.query("COMMIT", logger: logger)
            } catch {
                try? await slow.close()
                throw error
            }
            try await slow.close()
            let after = try await b.sync()
            #expect(after.downloaded == 2 && after.applied == 2)
            let records = try stores.records(1)
            #expect(records[try RecordRef("note/early")] == ["title": "first in"])
            #expect(records[try RecordRef("note/0-0")] != nil)
        }

        /// A deletion wins over the sets stamped before it and loses to a set stamped after it,
        /// on every store.
        @Test func tombstonesAgainstEarlierAndLaterSets() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(2)
            let (a, b) = try (stores.engine(0, database), stores.engine(1, database))
            _ = try await a.sync()
            _ = try await b.sync()
            let (one, two) = (try RecordRef("note/1"), try RecordRef("note/2"))
            try await stores[0].write { txn in
                try txn.put("title", forKey: "title", of: one)
                try txn.put("doomed", forKey: "title", of: two)
            }
            _ = try await a.sync()
            _ = try await b.sync()
            try await stores[1].write { txn in
                try txn.delete(one)
                try txn.delete(two)
            }
            _ = try await b.sync()
            try await Task.sleep(for: .milliseconds(5))
            try await stores[0].write { try $0.put("later", forKey: "body", of: one) }  // A has not seen the deletion
            for engine in [a, b, a] { _ = try await engine.sync() }
            for index in 0..<2 {
                let records = try stores.records(index)
                #expect(records[one] == ["body": "later"], "store \(index)")
                #expect(records[two] == nil, "store \(index)")
            }
        }

        /// 10,000 writes made offline, then one sync each way: the stores converge. Prints the
        /// rates (entries/s) for the record.
        @Test func tenThousandOfflineWritesConverge() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(2)
            let (a, b) = try (stores.engine(0, database), stores.engine(1, database))
            _ = try await b.sync()
            try stores.writeNotes(0, count: 10_000)
            let clock = ContinuousClock()
            let up = try await clock.measure { let report = try await a.sync(); #expect(report.uploadedNew == 10_000) }
            let down = try await clock.measure { let report = try await b.sync(); #expect(report.applied == 10_000) }
            #expect(try stores.records(1) == stores.records(0))
            func rate(_ duration: Duration) -> Int { Int(10_000 / (Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)) }
            print("sync 10k: upload \(up) (\(rate(up)) entries/s), download+apply \(down) (\(rate(down)) entries/s)")
        }
    }
}
