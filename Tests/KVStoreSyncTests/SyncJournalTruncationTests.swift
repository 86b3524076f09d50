import Foundation
@_spi(Sync) import KVStore
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    /// Stores whose journal was truncated: what sync needs of it is kept, what it does not need
    /// never blocks it.
    @Suite struct SyncJournalTruncationTests {
        /// A store that truncated its journal before it started syncing (its kinds that sync had
        /// no records, nothing of the truncated entries is to upload) syncs, and its status reads.
        @Test func aJournalTruncatedBeforeSyncStartedDoesNotBlockIt() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(2)
            try stores[0].write { try $0.insert(["n": 1], as: try RecordRef("person/1")) }
            try stores[0].truncateJournal(before: try stores[0].read { try $0.lastSequence() } + 1)
            let engines = try (0..<2).map { try stores.engine($0, database) }
            _ = try await engines[0].sync()
            let note = try RecordRef("note/1")
            try stores[0].write { try $0.insert(["title": "a"], as: note) }
            #expect(try SyncStatus.read(stores[0])?.pendingUploads == 1)
            _ = try await engines[0].sync()
            _ = try await engines[1].sync()
            #expect(try stores.records(1) == [note: ["title": "a"]])
        }
    }
}
