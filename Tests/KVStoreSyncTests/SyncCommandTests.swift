import Foundation
@_spi(Sync) import KVStore
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    /// `kvstore sync` end to end: the executable against a real hub.
    @Suite struct SyncCommandTests {
        @Test func syncPrintsWhatItDidAndTheStoresDumpAlike() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(2)
            let (a, b) = (stores[0].path, stores[1].path)
            let dir = stores.directory
            let first = try await SyncTool.run(["sync", a, database.url(), "--kinds", "note"], in: dir)
            #expect(first.status == 0 && first.stderr.isEmpty, "\(first)")
            #expect(first.stdout.contains("uploaded 0 changes (0 new to the hub) in 0 batches\n"))
            try await stores[0].write { txn in for n in 0..<3 { try txn.put(.int(Int64(n)), forKey: "n", of: try RecordRef("note/\(n)")) } }
            let upload = try await SyncTool.run(["sync", a, database.url()], in: dir)
            #expect(upload.stdout.contains("uploaded 3 changes (3 new to the hub) in 1 batch\n"), "\(upload)")
            let download = try await SyncTool.run(["sync", b, database.url(), "--kinds", "note", "--batch", "2"], in: dir)
            #expect(download.stdout.contains("downloaded 3, applied 3 (the rest already applied or superseded)\n"), "\(download)")
            #expect(download.stdout.contains("clock offset "))
            #expect(!download.stdout.contains(database.password) && !download.stdout.contains("secret"))

            let dumps = try await [SyncTool.run(["dump", a], in: dir), SyncTool.run(["dump", b], in: dir)]
            #expect(dumps[0].stdout.split(separator: "\n").count == 3 && dumps[0].stdout == dumps[1].stdout)
            let status = try await SyncTool.run(["sync", b, "--status"], in: dir)
            #expect(status.stdout.contains("sync kinds        note\n") && status.stdout.contains("pending uploads   0\n"), "\(status)")
            let statusCommand = try await SyncTool.run(["sync", "status", b], in: dir)   // the form
            #expect(statusCommand.status == 0 && statusCommand.stdout == status.stdout, "\(statusCommand)")
            let byOption = try await SyncTool.run(["sync", a, "--hub", database.url()], in: dir)
            #expect(byOption.status == 0 && byOption.stdout.contains("uploaded 0 changes"), "\(byOption)")
            let stat = try await SyncTool.run(["stat", a], in: dir)
            #expect(stat.stdout.contains("uploaded through") && stat.stdout.contains("hub "), "\(stat)")
        }

        @Test func errorsAreOneLine() async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(1)
            let path = stores[0].path, dir = stores.directory
            let port = try LoopbackListener().port
            let cases: [([String], String)] = [
                (["sync", path], "kvstore: sync needs the hub's URL: kvstore sync PATH postgres://USER@HOST/DATABASE\n"),
                (["sync", path, "http://x/y"], "kvstore: the hub URL must start with postgres:// (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)\n"),
                (["sync", path, "postgres://u:pw@127.0.0.1:\(port)/db"],
                 "kvstore: postgres://u@127.0.0.1:\(port)/db: cannot reach the hub at 127.0.0.1:\(port): connection refused\n"),
                (["sync", path, database.url(), "--kinds", "no such"], "kvstore: "),
                (["sync", path, database.url(), "--batch", "0"], "kvstore: --batch must be at least 1, not 0\n"),
                (["sync", path, database.url(), "--hub", database.url()], "kvstore: give the hub's URL once: as the argument or as --hub, not both\n"),
                (["sync", "status", dir.path("missing")], "kvstore: "),
            ]
            for (arguments, message) in cases {
                let result = try await SyncTool.run(arguments, in: dir)
                #expect(result.status == 1 && result.stdout.isEmpty, "\(arguments): \(result)")
                #expect(result.stderr.hasPrefix(message) && result.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): \(result.stderr)")
            }
            #expect(try SyncStatus.read(stores[0]) == nil)  // nothing enabled by the failed runs
        }
    }
}

extension HubTests.SyncCommandTests {
    /// `--follow` applies another store's upload as it comes, and ends cleanly on SIGINT.
    @Test(.timeLimit(.minutes(10))) func followAppliesUploadsUntilInterrupted() async throws {
        let database = try await HubDatabase.make()
        let stores = try SyncedStores(2)
        _ = try await stores.engine(0, database).sync()
        _ = try await stores.engine(1, database).sync()
        let (process, out, _) = try SyncTool.start(["sync", stores[1].path, database.url(), "--follow"], in: stores.directory)
        try stores.writeNotes(0, count: 3)
        _ = try await stores.engine(0, database).sync()
        #expect(await eventually { try stores.records(1).count == 3 })
        kill(process.processIdentifier, SIGINT)
        try await onOwnThread { process.waitUntilExit() }
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains("downloaded 3, applied 3"))
    }
}
