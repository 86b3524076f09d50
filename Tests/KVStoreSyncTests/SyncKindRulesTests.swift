import Foundation
@_spi(Sync) import KVStore
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    /// Kind rules are each store's own: a downloaded change that this store's rules refuse stops
    /// the download at its page, naming the change, and nothing of the page is applied.
    @Suite struct SyncKindRulesTests {
        @Test func aChangeThisStoresRulesRefuseStopsTheDownloadUntilTheyAllowIt() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(2)
            let engines = try (0..<2).map { try stores.engine($0, database) }
            for engine in engines { _ = try await engine.sync() }
            try stores[1].register(try Kind("note", keys: ["title": .string]))   // closed: title only
            try await stores[0].write { txn in
                try txn.insert(["title": "kept"], as: try RecordRef("note/a"))
                try txn.insert(["title": "refused", "body": "not declared on store 1"], as: try RecordRef("note/b"))
            }
            _ = try await engines[0].sync()
            let cursor = try await stores[1].read { try $0.syncCursors()?.download }
            for _ in 0..<2 {  // every pass stops at the same change
                let error = await #expect(throws: SyncError.self) { try await engines[1].sync() }
                #expect(error?.code == .storeRefused)
                #expect(error?.message.contains("note/b") == true && error?.message.contains("body") == true, "\(String(describing: error))")
            }
            #expect(try stores.records(1).isEmpty)   // not even note/a of the same page
            #expect(try await stores[1].read { try $0.syncCursors()?.download } == cursor)

            try stores[1].register(try Kind("note", keys: ["title": .string, "body": .string]))
            _ = try await engines[1].sync()
            #expect(try stores.records(1) == stores.records(0))
        }
    }
}
