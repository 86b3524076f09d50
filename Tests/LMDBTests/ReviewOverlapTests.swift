import CLMDB
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import LMDB
#if canImport(Glibc)
import Glibc
#endif

// Review of 6d85954 (`.full` syncs its meta page after the write lock, counting failures).
// Review of 6d85954 (the .full meta sync after the write lock): each test failed on it.

/// Fault tests: in the serialized suite that owns `SyncFaults` (one armed descriptor at a time).
extension ReviewWriteSyncFailureTests {
    /// The failure count a commit is checked against was taken after `mdb_txn_commit` returned
    /// (it is now taken before), and LMDB has written the meta page (unsynced) before that. A sync on another
    /// thread — a requested `sync()`, or the pipeline's syncer syncing the group before —
    /// may write that page, take its writeback error and count it in between: the count
    /// taken includes it, the commit's own later `fdatasync` returns 0, and the commit is
    /// acknowledged though its meta page may be lost. (The `committed` callback runs in that
    /// window, as `Store` enqueues its notifications there; the race needs no callback.)
    @Test func aSyncTakingTheMetaPagesErrorBeforeTheCommitIsMarkedFailsTheCommit() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)  // .full
        let db = try env.openDatabase("things")
        let fd = try dataFileDescriptor(env)
        defer { _ = SyncFaults.failNext.compareExchange(expected: fd, desired: -1, ordering: .relaxed) }
        let requested = LockedState<Bool?>(nil)
        let write = GroupedWrite(
            body: { txn in try txn.put(Array("a".utf8), Array("1".utf8), in: db) },
            merged: {}, discarded: {},
            committed: {
                // The meta page is written, not synced; another thread's sync takes its error.
                SyncFaults.failNext.store(fd, ordering: .releasing)
                let done = DispatchSemaphore(value: 0)
                Thread {
                    let failed = (try? env.sync()) == nil
                    requested.withLock { $0 = failed }
                    done.signal()
                }.start()
                done.wait()
            })
        let unsynced = try #require(try env.writeDeferringSync([write]))
        #expect(requested.withLock { $0 } == true, "the requested sync took the error")
        #expect(throws: LMDBError.self, "the meta page may be lost: the commit must not be acknowledged") {
            try env.syncCommitted(since: unsynced)
        }
    }

    /// After a meta page's sync failed (its writeback lost: commit B), the environment went
    /// on committing (now, until a commit's meta page is synced under the write lock, each is). C's meta page goes to the slot of A's (the last one known on the disk);
    /// D reuses the pages B freed — pages of A's tree — and writes them before its `fdatasync`
    /// (the kernel may write them back at any time), while C's meta page is not synced yet (the
    /// pipeline syncs it after the lock). A crash then leaves A's meta page (and in B's slot the
    /// one before A) naming pages D overwrote: the store opens on a tree that never existed.
    /// LMDB's own `.full` (meta with `O_DSYNC`) marks the environment failed (`MDB_PANIC`) when
    /// the meta write fails. The model: every page written may be on the disk; the meta pages
    /// are those last synced (a page whose writeback failed keeps its older contents).
    @Test func aCommitAfterALostMetaPageDoesNotOverwriteTheLastDurableSnapshot() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)  // .full
        let db = try env.openDatabase("things")
        let fd = try dataFileDescriptor(env)
        defer { _ = SyncFaults.failNext.compareExchange(expected: fd, desired: -1, ordering: .relaxed) }
        let pageSize = env.info().pageSize
        let keys = (0..<40).map { Array("key-\($0)".utf8) }
        func putAll(_ tag: String) -> (Transaction) throws -> Void {
            { txn in for (i, key) in keys.enumerated() { try txn.put(key, Array("\(tag)-\(i)".utf8), in: db) } }
        }
        for round in 0..<6 { try env.write(putAll("w\(round)")) }
        try env.write(putAll("A"))
        let dataFile = dir.path + "/data.mdb"
        let durableMetas = try metaPages(of: dataFile, pageSize: pageSize)  // A's and the one before
        let a = env.lastTransactionID
        // B: its commit returned; the sync of its meta page fails (the writeback was lost).
        #expect(throws: (any Error).self) {
            try env.write(putAll("B"), didCommit: {}, unlocked: { SyncFaults.failNext.store(fd, ordering: .releasing) })
        }
        // C and D through the pipeline's entry point: D commits while C's meta page awaits its sync.
        SyncFaults.watched.store(fd, ordering: .releasing)
        defer { SyncFaults.watched.store(-1, ordering: .releasing) }
        let callsBeforeC = SyncFaults.watchedCalls.load(ordering: .acquiring)
        let c = GroupedWrite(body: putAll("C"), merged: {}, discarded: {}, committed: {})
        do { _ = try env.writeDeferringSync([c]) } catch { return }  // refused: safe
        guard c.error == nil else { return }
        let cMetaSynced = SyncFaults.watchedCalls.load(ordering: .acquiring) - callsBeforeC >= 2
        let d = GroupedWrite(body: putAll("D"), merged: {}, discarded: {}, committed: {})
        do { _ = try env.writeDeferringSync([d]) } catch { return }
        guard d.error == nil else { return }
        // A crash now, before D's fdatasync made C's meta page durable.
        var image = try Data(contentsOf: URL(fileURLWithPath: dataFile))
        var metas = durableMetas
        if cMetaSynced {
            let current = try metaPages(of: dataFile, pageSize: pageSize)
            let slot = (a + 2) & 1
            metas[slot] = current[slot]
        }
        image.replaceSubrange(0..<(2 * pageSize), with: metas[0] + metas[1])
        let crashed = try TemporaryDirectory()
        try image.write(to: URL(fileURLWithPath: crashed.path + "/data.mdb"))
        let reopened = try Environment(path: crashed.path, options: .init(readOnly: true))
        let opened = reopened.lastTransactionID
        let tag = opened == a ? "A" : opened == a + 2 ? "C" : "?"
        let values = Result { () throws -> [String] in
            try reopened.read { txn in
                let things = try txn.openDatabase("things", create: false)
                return try keys.map { key in String(decoding: try txn.value(forKey: key, in: things) ?? [], as: UTF8.self) }
            }
        }
        let expected = (0..<keys.count).map { "\(tag)-\($0)" }
        #expect((try? values.get()) == expected, "the store as a crash leaves it (transaction \(opened)) holds \(values)")
    }

    private func metaPages(of path: String, pageSize: Int) throws -> [Data] {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let bytes = try #require(try handle.read(upToCount: 2 * pageSize))
        return [bytes.prefix(pageSize), bytes.dropFirst(pageSize).prefix(pageSize)].map { Data($0) }
    }
}

/// The overlap's effect on the writers that do not fail.
@Suite struct ReviewOverlapTests {
    /// After its meta page's sync, a commit waits for a commit under way to count its failure —
    /// only for the `mdb_txn_commit` call, not for the next writer's whole transaction: writer A,
    /// committed, returns while writer B's body is still running (B's body waits for A to return;
    /// when A waited for B's body too, as it did when it waited for the write lock, B's wait
    /// expires after 60 s and the test fails).
    @Test func anAcknowledgedCommitDoesNotWaitForTheNextWritersBody() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)  // .full
        let db = try env.openDatabase("things")
        let inBody = DispatchSemaphore(value: 0)
        let aReturned = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let sawAReturn = Atomic<Bool>(false)
        try env.write({ txn in try txn.put(Array("a".utf8), Array("1".utf8), in: db) }, didCommit: {}, unlocked: {
            Thread {
                try? env.write { txn in
                    inBody.signal()
                    sawAReturn.store(aReturned.wait(timeout: .now() + 60) == .success, ordering: .releasing)
                    try txn.put(Array("b".utf8), Array("2".utf8), in: db)
                }
                ended.signal()
            }.start()
            inBody.wait()
        })
        aReturned.signal()
        ended.wait()
        let aReturnedFirst = sawAReturn.load(ordering: .acquiring)
        #expect(aReturnedFirst, "A's write returned only once B's body ended")
    }
}
