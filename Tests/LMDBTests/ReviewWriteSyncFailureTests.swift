import CLMDB
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import LMDB
#if canImport(Glibc)
import Glibc
#endif

/// A failed `fdatasync` as Linux reports it (since 4.13, `errseq_t`): a writeback error is
/// returned once, to the first `fdatasync` on the file after it; the next one returns 0 although
/// the pages it covered never reached the disk. This test binary's `fdatasync` (which LMDB calls
/// through its PLT) passes every call through, except the next one on an armed descriptor.
enum SyncFaults {
    /// The descriptor whose next `fdatasync` fails with `EIO` (-1: none).
    static let failNext = Atomic<Int32>(-1)
    /// The descriptor whose `fdatasync` calls are counted, and the count.
    static let watched = Atomic<Int32>(-1)
    static let watchedCalls = Atomic<Int>(0)
}

private typealias FdatasyncFunction = @convention(c) (Int32) -> Int32
nonisolated(unsafe) private let realFdatasync = unsafeBitCast(
    dlsym(UnsafeMutableRawPointer(bitPattern: -1), "fdatasync"), to: FdatasyncFunction.self)

@_cdecl("fdatasync")
func reviewWriteFdatasync(_ fd: Int32) -> Int32 {
    if fd == SyncFaults.watched.load(ordering: .acquiring) { SyncFaults.watchedCalls.add(1, ordering: .relaxed) }
    if fd >= 0, SyncFaults.failNext.compareExchange(expected: fd, desired: -1, ordering: .acquiringAndReleasing).exchanged {
        errno = EIO
        return -1
    }
    return realFdatasync(fd)
}

/// Review of the `.full` meta-page sync outside the write lock and of `.periodicSync`: a sync
/// error must reach the commits it may cover.
@Suite(.serialized) struct ReviewWriteSyncFailureTests {
    /// LMDB's descriptor of the data file (the one its syncs use).
    func dataFileDescriptor(_ env: Environment) throws -> Int32 {
        var fd: Int32 = -1
        try #require(mdb_env_get_fd(env.handle, &fd) == 0)
        return fd
    }

    /// Writer A commits and releases the lock; writer B commits next and its sync fails. `.full`
    /// syncs A's meta page outside the write lock: B's sync was the first on the file after A's
    /// meta page's writeback failed, so B took the error and A's own later `fdatasync` returned
    /// 0. A must fail too (it was acknowledged, once, though its meta page may be lost).
    @Test func aWriteBackErrorSeenByTheNextCommitFailsTheCommitWhoseMetaPageItCovers() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)  // .full
        let db = try env.openDatabase("things")
        let fd = try dataFileDescriptor(env)
        SyncFaults.watched.store(fd, ordering: .releasing)
        defer { SyncFaults.watched.store(-1, ordering: .releasing) }
        defer { _ = SyncFaults.failNext.compareExchange(expected: fd, desired: -1, ordering: .relaxed) }
        let before = env.syncCounts.committed
        let second = LockedState<Result<Void, any Error>?>(nil)
        let first = Result {
            try env.write({ txn in try txn.put(Array("a".utf8), Array("1".utf8), in: db) }, didCommit: {}, unlocked: {
                SyncFaults.failNext.store(fd, ordering: .releasing)
                let done = DispatchSemaphore(value: 0)
                Thread {
                    let outcome = Result { try env.write { txn in try txn.put(Array("b".utf8), Array("2".utf8), in: db) } }
                    second.withLock { $0 = outcome }
                    done.signal()
                }.start()
                done.wait()
            })
        }
        #expect(SyncFaults.watchedCalls.load(ordering: .acquiring) > 0)
        let secondFailed = second.withLock { state in if case .failure = state { true } else { false } }
        #expect(secondFailed)
        #expect(throws: LMDBError.self, "A's meta page may be lost: its commit must not be acknowledged") { try first.get() }
        #expect(env.syncCounts.committed > before, "A's meta page is synced after the commit")
    }

    /// A group committed through the pipeline's entry point waits for its sync; meanwhile another
    /// caller's `sync()` takes the writeback error: the group's sync returns 0 and must throw.
    @Test func aRequestedSyncTakingTheErrorFailsTheUnsyncedGroup() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)  // .full
        let db = try env.openDatabase("things")
        let fd = try dataFileDescriptor(env)
        let write = GroupedWrite(body: { txn in try txn.put(Array("a".utf8), Array("1".utf8), in: db) },
                                 merged: {}, discarded: {}, committed: {})
        let unsynced = try #require(try env.writeDeferringSync([write]))
        #expect(write.error == nil)
        SyncFaults.failNext.store(fd, ordering: .releasing)
        defer { _ = SyncFaults.failNext.compareExchange(expected: fd, desired: -1, ordering: .relaxed) }
        #expect(throws: LMDBError.self) { try env.sync() }
        #expect(throws: LMDBError.self) { try env.syncCommitted(since: unsynced) }
        // A group committed after the failure was counted is not failed by it.
        let later = GroupedWrite(body: { txn in try txn.put(Array("b".utf8), Array("2".utf8), in: db) },
                                 merged: {}, discarded: {}, committed: {})
        let laterUnsynced = try #require(try env.writeDeferringSync([later]))
        #expect(throws: Never.self) { try env.syncCommitted(since: laterUnsynced) }
    }

    /// Without a fault, a `.full` commit's meta page is synced by the environment after the write
    /// lock is released (`MDB_NOMETASYNC`), once per commit.
    @Test func fullSyncsItsMetaPageAfterTheCommit() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)  // .full
        var flags: UInt32 = 0
        try #require(mdb_env_get_flags(env.handle, &flags) == 0)
        #expect(flags & UInt32(MDB_NOMETASYNC) != 0)
        #expect(flags & UInt32(MDB_NOSYNC) == 0)
        let db = try env.openDatabase("things")
        let before = env.syncCounts.committed
        try env.write { txn in try txn.put(Array("a".utf8), Array("1".utf8), in: db) }
        #expect(env.syncCounts.committed == before + 1)
    }

    /// `.periodicSync`: the timer's sync fails (and `try?` drops the error); the next sync returns
    /// 0 though the pages it was to make durable are lost. `sync()` must report the failure.
    @Test func aFailedPeriodicSyncIsReportedByTheNextRequestedSync() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path, options: .init(durability: .periodicSync, syncInterval: .milliseconds(5)))
        let db = try env.openDatabase("things")
        let fd = try dataFileDescriptor(env)
        try env.write { txn in try txn.put(Array("a".utf8), Array("1".utf8), in: db) }
        SyncFaults.failNext.store(fd, ordering: .releasing)
        defer { _ = SyncFaults.failNext.compareExchange(expected: fd, desired: -1, ordering: .relaxed) }
        // The periodic sync takes the error.
        #expect(waitUntil(timeout: 10) { SyncFaults.failNext.load(ordering: .acquiring) == -1 })
        #expect(throws: LMDBError.self) { try env.sync() }
    }
}
