import Foundation
@_spi(Sync) import KVStore
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    /// A store whose kinds hold records before it syncs: `kvstore sync` refuses to enable them
    /// and says how to bring the records along, and that way works.
    @Suite struct SyncExistingRecordsTests {
        @Test func recordsJoinThroughANewStoreThatSyncs() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(2)
            let (old, other) = (stores[0], stores[1].path)
            let dir = stores.directory
            try await old.write { txn in
                for n in 0..<3 { try txn.insert(["n": .int(Int64(n)), "big": .double(1e20)], as: try RecordRef("note/\(n)")) }
            }
            let refused = try await SyncTool.run(["sync", old.path, database.url(), "--kinds", "note"], in: dir)
            #expect(refused.status == 1 && refused.stdout.isEmpty, "\(refused)")
            #expect(refused.stderr.hasPrefix("kvstore: ") && refused.stderr.filter { $0 == "\n" }.count == 1, "\(refused)")
            #expect(refused.stderr.hasSuffix("kind 'note' has 3 records already: enable sync for a kind before it has records "
                        + "(only changes journaled while it syncs are uploaded), or load its records into a new store that syncs it "
                        + "(kvstore dump OLD | kvstore load NEW)\n"))
            // A new device's store is made by its first sync; not when that sync fails.
            let fresh = dir.path("fresh")
            let port = try LoopbackListener().port
            let unreachable = try await SyncTool.run(["sync", fresh, "postgres://u@127.0.0.1:\(port)/db", "--kinds", "note"], in: dir)
            #expect(unreachable.status == 1 && !FileManager.default.fileExists(atPath: fresh), "\(unreachable)")
            let enable = try await SyncTool.run(["sync", fresh, database.url(), "--kinds", "note"], in: dir)
            #expect(enable.status == 0, "\(enable)")
            let dump = dir.path("old.jsonl")
            let dumped = try await SyncTool.run(["dump", old.path], in: dir)
            #expect(dumped.status == 0, "\(dumped)")
            try dumped.stdout.write(toFile: dump, atomically: true, encoding: .utf8)
            let loaded = try await SyncTool.run(["load", fresh, dump], in: dir)
            #expect(loaded.status == 0, "\(loaded)")
            let upload = try await SyncTool.run(["sync", fresh, database.url()], in: dir)
            #expect(upload.stdout.contains("uploaded 3 changes (3 new to the hub) in 1 batch\n"), "\(upload)")
            let download = try await SyncTool.run(["sync", other, database.url(), "--kinds", "note"], in: dir)
            #expect(download.stdout.contains("applied 3"), "\(download)")
            let dumps = try await [SyncTool.run(["dump", old.path], in: dir), SyncTool.run(["dump", other], in: dir)]
            #expect(dumps[0].stdout.split(separator: "\n").count == 3 && dumps[0].stdout == dumps[1].stdout)
        }
    }
}
