import Foundation
@_spi(Sync) import KVStore
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    /// Stores whose clocks are wrong converge all the same, by the rule the KVStoreSync article
    /// states: a clock ahead wins with what it wrote before it learned the hub's time, and is
    /// clamped to the hub's time after; a clock behind loses concurrent writes, never to what it
    /// has already downloaded.
    @Suite struct SyncClockSkewTests {
        static let hour: TimeInterval = 3600

        @Test(arguments: [UInt64(1), 2, 3])
        func aClockAnHourAheadWinsUntilItLearnsTheHubsTime(seed: UInt64) async throws {
            var random = SeededRandom(seed)
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(3, clockOffsets: [Self.hour])  // A ahead; B and C on time
            let engines = try (0..<3).map { try stores.engine($0, database) }
            let (shared, fresh) = (try RecordRef("note/shared"), try RecordRef("note/fresh"))
            _ = try await engines[1].sync()
            _ = try await engines[2].sync()

            // Before A ever synced: its stamps are an hour ahead, and win as stamped.
            try stores.writeNotes(0, count: 1)
            try await stores[0].write { try $0.put("A, first", forKey: "title", of: shared) }
            let early = try #require(try Self.lastLocalStamp(stores[0], of: shared))
            #expect(Double(early.wall) / 1000 > Date().timeIntervalSince1970 + Self.hour - 60)
            try await Task.sleep(for: .milliseconds(5))
            try await stores[1].write { try $0.put("B, later", forKey: "title", of: shared) }
            try await stores[2].write { try $0.put("C", forKey: "body", of: shared) }
            try stores.writeNotes(2, count: 1)
            let reports = try await Self.syncInRandomOrder(engines, rounds: 2, using: &random)
            try Self.expectSameRecords(stores)
            #expect(try stores.records(1)[shared] == ["title": "A, first", "body": "C"])
            #expect(reports[1].contains { !$0.aheadOfClock.isEmpty } && reports[2].contains { !$0.aheadOfClock.isEmpty },
                    "B and C name A's changes as ahead of the hub's clock")
            #expect(reports[0].last?.clockClamped == true)

            // After: A's new stamps take the hub's time, and a later write elsewhere wins.
            #expect(try await stores[0].read { try $0.clockIsClamped() })
            try await stores[0].write { try $0.put("A, clamped", forKey: "title", of: fresh) }
            let clamped = try #require(try Self.lastLocalStamp(stores[0], of: fresh))
            #expect(abs(Double(clamped.wall) / 1000 - Date().timeIntervalSince1970) < 60, "A stamped \(clamped) after it knew the hub's time")
            // B writes later than A's stamp: the hub's time as A estimates it may be ahead of the
            // machine's by the error of the offset A measured (half a round trip to the hub, more
            // than a few milliseconds on a loaded machine). Waited for, within a second.
            try await Self.waitForTheClock(toPass: clamped)
            try await stores[1].write { try $0.put("B, after", forKey: "title", of: fresh) }
            try await stores[2].write { try $0.put("C", forKey: "body", of: fresh) }
            // A record holding A's early stamp: a change made after it there is stamped after it.
            try await stores[2].write { try $0.put("C, after seeing A", forKey: "title", of: shared) }
            _ = try await Self.syncInRandomOrder(engines, rounds: 2, using: &random)
            try Self.expectSameRecords(stores)
            let records = try stores.records(0)
            #expect(records[fresh] == ["title": "B, after", "body": "C"])
            #expect(records[shared]?["title"] == "C, after seeing A")
            #expect(records.count == 4)
        }

        @Test func aClockAnHourBehindLosesConcurrentWritesButNotWhatItSaw() async throws {
            var random = SeededRandom(7)
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(3, clockOffsets: [0, 0, -Self.hour])  // C behind
            let engines = try (0..<3).map { try stores.engine($0, database) }
            for engine in engines { _ = try await engine.sync() }
            let (seen, concurrent) = (try RecordRef("note/seen"), try RecordRef("note/concurrent"))

            // C writes after downloading B's change: its clock moved to B's stamp, and it wins.
            try await stores[1].write { try $0.put("B", forKey: "title", of: seen) }
            _ = try await engines[1].sync()
            _ = try await engines[2].sync()
            try await stores[2].write { try $0.put("C, after B", forKey: "title", of: seen) }
            // B and C write one key without syncing in between, C last: B's stamp is later.
            try await Task.sleep(for: .milliseconds(5))
            try await stores[1].write { try $0.put("B", forKey: "title", of: concurrent) }
            try await Task.sleep(for: .milliseconds(5))
            try await stores[2].write { try $0.put("C, last", forKey: "title", of: concurrent) }
            try await stores[0].write { try $0.put("A", forKey: "body", of: concurrent) }
            let reports = try await Self.syncInRandomOrder(engines, rounds: 2, using: &random)
            try Self.expectSameRecords(stores)
            let records = try stores.records(0)
            #expect(records[seen] == ["title": "C, after B"])
            #expect(records[concurrent] == ["title": "B", "body": "A"])
            #expect(reports[2].allSatisfy { !$0.clockClamped && $0.clockOffsetMilliseconds > 3_500_000 })
        }

        /// Passes of every engine, each round in a random order: what every store holds after.
        /// - Returns: each engine's reports.
        static func syncInRandomOrder(_ engines: [SyncEngine], rounds: Int,
                                      using random: inout SeededRandom) async throws -> [[SyncReport]] {
            var reports = Array(repeating: [SyncReport](), count: engines.count)
            for _ in 0..<rounds {
                for index in engines.indices.shuffled(using: &random) { reports[index].append(try await engines[index].sync()) }
            }
            return reports
        }

        static func expectSameRecords(_ stores: SyncedStores, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let first = try stores.records(0)
            for index in stores.stores.indices.dropFirst() {
                #expect(try stores.records(index) == first, "store \(index) differs from store 0", sourceLocation: sourceLocation)
            }
        }

        /// Sleeps until this machine's clock (B's and C's) is past `stamp`'s millisecond, for at
        /// most a second: a stamp further ahead than that is not the hub's time.
        static func waitForTheClock(toPass stamp: HybridTime) async throws {
            let deadline = Date().addingTimeInterval(1)
            while UInt64(Date().timeIntervalSince1970 * 1000) <= stamp.wall + 1, Date() < deadline {
                try await Task.sleep(for: .milliseconds(2))
            }
        }

        /// The stamp of the store's last own change of `ref`.
        static func lastLocalStamp(_ store: Store, of ref: RecordRef) throws -> HybridTime? {
            try store.journalEntries().last { $0.origin == nil && $0.ref == ref }?.stamp
        }
    }
}
