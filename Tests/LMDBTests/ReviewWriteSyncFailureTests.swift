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
/// error must reach the commits it covers.
@Suite(.serialized) struct ReviewWriteSyncFailureTests {
    private func dataFileDescriptor(_ env: Environment) throws -> Int32 {
        var fd: Int32 = -1
        try #require(mdb_env_get_fd(env.handle, &fd) == 0)
        return fd
    }

    /// Writer A commits (meta page N written, unsynced) and releases the lock; before its own
    /// `fdatasync`, writer B commits N + 1: LMDB's sync inside B's commit is the first on the file
    /// since the meta page's writeback failed, so B gets `EIO`; A's `fdatasync` then returns 0.
    /// Before the change (meta page written with `O_DSYNC` inside A's commit) A got the error.
    @Test func aWriteBackErrorSeenByTheNextCommitFailsTheCommitWhoseMetaPageItCovers() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)  // .full
        let db = try env.openDatabase("things")
        let fd = try dataFileDescriptor(env)
        SyncFaults.watched.store(fd, ordering: .releasing)
        defer { SyncFaults.watched.store(-1, ordering: .releasing) }
        let second = LockedState<Result<Void, any Error>?>(nil)
        var first: Result<Void, any Error>
        do {
            try env.write({ txn in try txn.put(Array("a".utf8), Array("1".utf8), in: db) }, didCommit: {}, unlocked: {
                // A's meta page is in the page cache; its writeback fails now.
                SyncFaults.failNext.store(fd, ordering: .releasing)
                let done = DispatchSemaphore(value: 0)
                Thread {
                    let outcome = Result { try env.write { txn in try txn.put(Array("b".utf8), Array("2".utf8), in: db) } }
                    second.withLock { $0 = outcome }
                    done.signal()
                }.start()
                done.wait()
            })
            first = .success(())
        } catch {
            first = .failure(error)
        }
        // The interposed fdatasync ran (LMDB's syncs go through it) and B saw the error.
        #expect(SyncFaults.watchedCalls.load(ordering: .acquiring) > 0)
        let secondFailed = second.withLock { state in if case .failure = state { true } else { false } }
        #expect(secondFailed)
        // A's meta page may never have reached the disk: A must not be told it is durable.
        if case .success = first {
            Issue.record("write A was acknowledged although the only sync error since its commit went to write B")
        }
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
