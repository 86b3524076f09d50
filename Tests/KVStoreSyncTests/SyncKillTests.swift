import Foundation
@_spi(Sync) import KVStore
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    /// `kvstore sync` killed with SIGKILL at random points, then run again: nothing lost,
    /// nothing twice.
    @Suite struct SyncKillTests {
        static let count = 2000

        @Test func aKilledUploadLosesAndRepeatsNothing() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(1)
            try stores.writeNotes(0, count: Self.count)
            let kills = try await Self.syncKilledAtRandom(stores[0].path, database, in: stores.directory)
            let rows = try await database.admin("SELECT count(*), count(DISTINCT origin_seq) FROM \(database.schema).changes "
                                                    + "WHERE origin = '\(stores[0].id.uuidString.lowercased())'")
            #expect(rows == "\(Self.count)|\(Self.count)\n", "after \(kills) kills")
            let status = try #require(try SyncStatus.read(stores[0]))
            #expect(status.pendingUploads == 0 && status.uploadedThrough == status.lastSequence)
        }

        @Test func aKilledDownloadLosesAndRepeatsNothing() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(2)
            try stores.writeNotes(0, count: Self.count)
            _ = try await stores.engine(0, database).sync()
            try await stores[1].write { try $0.setSyncConfiguration(SyncConfiguration(kinds: ["note"])) }
            let kills = try await Self.syncKilledAtRandom(stores[1].path, database, in: stores.directory)
            #expect(try stores.records(1) == stores.records(0), "after \(kills) kills")
            let applied = try await stores[1].read { try $0.journalEntries(after: 0) }.filter { $0.origin != nil }
            #expect(applied.count == Self.count)  // each remote change journaled once
            #expect(Set(applied.map(\.origin)).count == Self.count)
        }

        /// Runs `kvstore sync PATH URL --batch 50` and kills it after a random 0–300 ms, until a
        /// run finishes by itself; returns how many runs were killed mid-way.
        static func syncKilledAtRandom(_ path: String, _ database: HubDatabase, in directory: TemporaryDirectory) async throws -> Int {
            var random = SeededRandom(UInt64(path.utf8.count))
            var kills = 0
            for _ in 0..<40 {
                let delay = Double(random.next() % 300) / 1000
                let finished = try await onOwnThread { () throws -> Bool in
                    let (process, _, _) = try SyncTool.start(["sync", path, database.url(), "--kinds", "note", "--batch", "50"], in: directory)
                    Thread.sleep(forTimeInterval: delay)
                    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                    process.waitUntilExit()
                    return process.terminationReason == .exit && process.terminationStatus == 0
                }
                if finished && kills >= 3 { break }
                if !finished { kills += 1 }
            }
            let last = try await SyncTool.run(["sync", path, database.url()], in: directory)
            #expect(last.status == 0, "\(last)")
            return kills
        }
    }
}

extension SyncedStores {
    /// Enables sync for `note` on store `index` and writes `count` notes, one key each.
    func writeNotes(_ index: Int, count: Int, from first: Int = 0) throws {
        try self[index].write { txn in
            if try txn.syncConfiguration() == nil { try txn.setSyncConfiguration(SyncConfiguration(kinds: ["note"])) }
        }
        try self[index].write { txn in
            for n in first..<(first + count) { try txn.insert(["n": .int(Int64(n)), "by": .int(Int64(index))], as: try RecordRef("note/\(index)-\(n)")) }
        }
    }
}
