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
            try await stores[0].write { try $0.insert(["n": 1], as: try RecordRef("person/1")) }
            try stores[0].truncateJournal(before: try await stores[0].read { try $0.lastSequence() } + 1)
            let engines = try (0..<2).map { try stores.engine($0, database) }
            _ = try await engines[0].sync()
            let note = try RecordRef("note/1")
            try await stores[0].write { try $0.insert(["title": "a"], as: note) }
            #expect(try SyncStatus.read(stores[0])?.pendingUploads == 1)
            _ = try await engines[0].sync()
            _ = try await engines[1].sync()
            #expect(try stores.records(1) == [note: ["title": "a"]])
        }

        /// Entries a forced truncation dropped before they were uploaded are gone: sync says so
        /// and goes on with the later ones (instead of failing at every pass), and the status
        /// reads.
        @Test func changesTruncatedByForceBeforeUploadAreReportedAndPassed() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(2)
            let engines = try (0..<2).map { try stores.engine($0, database) }
            for engine in engines { _ = try await engine.sync() }
            try await stores[0].write { try $0.insert(["n": 1], as: try RecordRef("note/1")) }
            try await stores[0].write { try $0.insert(["n": 2], as: try RecordRef("note/2")) }
            try stores[0].truncateJournal(before: 3, force: true)
            try await stores[0].write { try $0.insert(["n": 3], as: try RecordRef("note/3")) }
            #expect(try SyncStatus.read(stores[0])?.pendingUploads == 1)
            let report = try await engines[0].sync()
            #expect(report.truncatedBeforeUpload == 1 ... 2 && report.uploaded == 1)
            #expect(report.description.contains("journal entries 1 through 2 were truncated before upload"))
            #expect(try await engines[0].sync().truncatedBeforeUpload == nil)
            _ = try await engines[1].sync()
            #expect(try stores.records(1) == [try RecordRef("note/3"): ["n": 3]])
        }
    }
}
