import Foundation
@_spi(Sync) import KVStore
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    /// One-pass sync of stores through a real hub.
    @Suite struct SyncEngineTests {
        /// Three stores write the same and different keys, then sync in a random order, twice
        /// round: they all hold the same records, and each change reached the hub once.
        @Test(arguments: [1, 2, 3]) func threeStoresConverge(seed: UInt64) async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(3)
            let engines = try (0..<3).map { try stores.engine($0, database, batchSize: 4) }
            for engine in engines { _ = try await engine.sync() }  // enable sync while the kinds are empty
            var random = SeededRandom(seed)
            for round in 0..<3 {
                for index in 0..<3 {
                    // Drawn in the same order as inside the write: a record, then a change, per n.
                    let picks = (0..<5).map { _ in (Int.random(in: 0..<4, using: &random), Int.random(in: 0..<6, using: &random)) }
                    try await stores[index].write { txn in
                        for n in 0..<5 {
                            let ref = try RecordRef("note/\(picks[n].0)")
                            switch picks[n].1 {
                            case 0: if try txn.record(ref) != nil { try txn.delete(ref) }
                            case 1: if try txn.record(ref) != nil { try txn.removeValue(forKey: "title", of: ref) }
                            default: try txn.put(.string("s\(index) r\(round) n\(n)"), forKey: ["title", "body"][n % 2], of: ref)
                            }
                        }
                    }
                }
                for index in (0..<3).shuffled(using: &random) { _ = try await engines[index].sync() }
            }
            for index in (0..<3).shuffled(using: &random) { _ = try await engines[index].sync() }
            let first = try stores.records(0)
            #expect(!first.isEmpty)
            #expect(try stores.records(1) == first)
            #expect(try stores.records(2) == first)
            let hubRows = try await database.admin("SELECT count(*), count(DISTINCT (origin, origin_seq)) FROM \(database.schema).changes")
            let parts = hubRows.split(separator: "|").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            #expect(parts.count == 2 && parts[0] == parts[1])
        }

        /// Values `jsonb` cannot hold exactly (a nanosecond timestamp as a double, `-0.0`, U+0000 in
        /// a string) sync like any other and arrive exactly: they once stopped every upload of
        /// the store behind them.
        @Test func valuesJsonbCannotHoldSyncExactly() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(2)
            let engines = try (0..<2).map { try stores.engine($0, database) }
            for engine in engines { _ = try await engine.sync() }
            let note = try RecordRef("note/1")
            try await stores[0].write { txn in
                try txn.put(.double(1.7e18), forKey: "nanoseconds", of: note)
                try txn.put(.double(-0.0), forKey: "zero", of: note)
                try txn.put(.string("a\u{0}b"), forKey: "text", of: note)
                try txn.put(.int(1), forKey: "plain", of: note)
            }
            _ = try await engines[0].sync()
            _ = try await engines[1].sync()
            let record = try #require(try await stores[1].read { try $0.record(note) })
            #expect(TypedJSON.string(from: .dictionary(record)) == #"{"nanoseconds":1.7e+18,"plain":1,"text":"a\u0000b","zero":-0.0}"#)
            #expect(try await database.admin("SELECT count(*) FROM \(database.schema).changes WHERE value ? '$kv'") == "3\n")
        }

        /// A store restored from a backup (its journal behind what the hub holds of its id) is
        /// refused with one line, and nothing is uploaded or applied.
        @Test func aRestoredStoreIsRefused() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(1)
            let engine = try stores.engine(0, database)
            _ = try await engine.sync()
            let backup = stores.directory.path("backup")
            try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: false)
            try FileManager.default.copyItem(atPath: stores[0].path + "/data.mdb", toPath: backup + "/data.mdb")
            try await stores[0].write { txn in for n in 0..<3 { try txn.put(.int(Int64(n)), forKey: "n", of: try RecordRef("note/\(n)")) } }
            _ = try await engine.sync()
            var options = Store.Options()
            options.durability = .noSync
            let restored = try Store(path: backup, options: options)
            let before = try await restored.read { try $0.syncCursors() }
            let error = await #expect(throws: SyncError.self) {
                try await SyncEngine(store: restored, hub: try database.configuration()).sync()
            }
            #expect(error?.code == .restoredOrCopied)
            #expect(error?.message.contains("was restored from a backup or copied: the hub holds its changes through sequence") == true)
            #expect(try await restored.read { try $0.syncCursors() } == before)  // nothing written
        }

        /// Kinds outside the store's sync kinds are never uploaded; a store syncing other kinds
        /// downloads none of them.
        @Test func kindsOutsideTheSyncedOnesStayLocal() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(2)
            let a = try stores.engine(0, database, kinds: ["note"]), b = try stores.engine(1, database, kinds: ["task"])
            _ = try await a.sync()
            try await stores[0].write { txn in
                try txn.put("synced", forKey: "title", of: try RecordRef("note/1"))
                try txn.put("local", forKey: "title", of: try RecordRef("draft/1"))
            }
            let report = try await a.sync()
            #expect(report.uploaded == 1)
            #expect(try await database.admin("SELECT DISTINCT kind FROM \(database.schema).changes") == "note\n")
            let other = try await b.sync()
            let records = try stores.records(1)
            #expect(other.downloaded == 0 && records.isEmpty)
        }

        /// Cursors belong to one hub: the same store synced with another hub uploads everything
        /// there and downloads it from the start.
        @Test func cursorsOfAnotherHubAreNotReused() async throws {
            let (first, second) = try await (HubDatabase.make(), HubDatabase.make())
            let stores = try SyncedStores(1)
            try stores.writeNotes(0, count: 5)
            let one = try await stores.engine(0, first).sync()
            let two = try await stores.engine(0, second).sync()
            #expect(one.uploadedNew == 5 && two.uploadedNew == 5 && one.hub != two.hub)
            #expect(try SyncStatus.read(stores[0])?.hub == two.hub.uuidString.lowercased())
        }
    }
}
