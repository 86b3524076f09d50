import CLMDB
import Dispatch
import Synchronization

/// The syncs the environment makes itself: the meta page after a `.full` commit, the periodic
/// and closing syncs of `.periodicSync`, and the ones asked for (``Environment/sync(force:)``).
extension Environment {
    /// How many syncs of each kind this environment made (for tests and benchmarks).
    package struct SyncCounts: Sendable, Equatable {
        /// Syncs that made `.full` commits durable (their meta pages), one per group of commits.
        package var committed = 0
        /// Background syncs of `.periodicSync`.
        package var periodic = 0
        /// ``Environment/sync(force:)`` calls.
        package var requested = 0
    }

    /// The syncs made so far.
    package var syncCounts: SyncCounts { syncState.counts }

    /// Makes the commits that returned before the call durable, or throws: ``syncMetaPages()``,
    /// then the check that no sync failure was counted since `commit` returned
    /// (``syncFailure(since:)``).
    package func syncCommitted(since commit: UnsyncedCommit) throws(LMDBError) {
        try syncMetaPages()
        if let failure = syncFailure(since: commit) { throw failure }
    }

    /// `fdatasync` of the data file (`mdb_env_sync(env, 1)`), which writes the meta pages LMDB
    /// wrote without syncing, then a wait for the LMDB commit under way, if one is. Called for
    /// `.full` after the write lock is released; LMDB takes no lock for it, so the next write
    /// commits meanwhile (its pages may reach the disk early, which is harmless: LMDB writes a
    /// meta page only after the data pages it names were synced).
    ///
    /// Linux reports a failed writeback once, to the first `fdatasync` on the file after it: when
    /// the writeback of a meta page this sync is for failed, the error may have gone to another
    /// sync — the next commit's own (its data pages), or another caller's — and this one returns
    /// 0 over a lost page. So every sync failure and every commit failing with an I/O error is
    /// counted, syncs take turns (``syncFile(force:)``), and this waits for the LMDB commit under
    /// way (whose `fdatasync` may have run before this one; a commit counts its failure before
    /// it ends): a failure that may have been this sync's is counted when it returns.
    package func syncMetaPages() throws(LMDBError) {
        try syncFile()
        syncState.count(\.committed)
        syncState.waitForCommitUnderWay()
    }

    /// The last sync failure counted since `commit` began committing, if one was: its meta page
    /// may be lost though its own sync returned 0. Such a commit may well be durable; it is
    /// reported as failed because nothing says it is.
    package func syncFailure(since commit: UnsyncedCommit) -> LMDBError? {
        syncState.failure(since: commit)
    }

    /// What follows `commit` while the write lock is still held: the sync a counted failure asks
    /// for, and the commit to hand to ``syncCommitted(since:)`` after the lock when the
    /// durability syncs its meta page there (``Durability/syncsMetaAfterCommit``), else nil.
    ///
    /// After a counted failure, a meta page may be lost while a later commit reuses the pages
    /// the last durable meta page names (LMDB reuses pages freed up to two commits back, which
    /// is safe only while one of those meta pages is on the disk): until a commit's meta page is
    /// synced with no new failure, each commit of a mode that does not sync its meta page in the
    /// commit (`.full`, `.noMetaSync`) syncs it before the write lock is released.
    func settle(_ commit: UnsyncedCommit) throws(LMDBError) -> UnsyncedCommit? {
        if options.durability.flags & UInt32(MDB_NOMETASYNC) != 0, syncState.hasUnclearedFailure {
            try syncFile()
            syncState.cleared(through: commit)
        }
        return options.durability.syncsMetaAfterCommit ? commit : nil
    }

    /// `mdb_env_sync(env, force)`, one at a time, noting the commits it covers for the periodic
    /// sync and counting a failure against unsynced commits (``syncCommitted(since:)``).
    func syncFile(force: Bool = true) throws(LMDBError) {
        try syncState.syncing { () throws(LMDBError) in
            let covered = commitsMade
            try LMDBError.check(mdb_env_sync(handle, force ? 1 : 0), "mdb_env_sync")
            syncState.synced(through: covered)
        }
    }

    /// The background sync of `.periodicSync`: every `syncInterval`, a sync when this process
    /// committed since the last one. Cancel it before the environment closes.
    func startPeriodicSync() -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "lmdb.periodic-sync"))
        let interval = options.syncInterval.components
        let nanoseconds = max(1_000_000, Int(interval.seconds) * 1_000_000_000 + Int(interval.attoseconds / 1_000_000_000))
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .nanoseconds(nanoseconds / 10))
        timer.setEventHandler { [weak self] in
            guard let self, self.syncState.isBehind(self.commitsMade) else { return }
            // Linux reports a failed writeback once, to the first fdatasync after it: a later
            // sync returning 0 does not bring the lost pages back. The failure is kept for the
            // next `sync(force:)`, which throws it.
            do throws(LMDBError) {
                try self.syncFile()
                self.syncState.count(\.periodic)
            } catch {
                self.syncState.failed(error)
            }
        }
        timer.resume()
        return timer
    }

    /// Syncs before closing, for `.periodicSync`, when this process committed since the last sync.
    func syncBeforeClosing() {
        guard options.durability == .periodicSync, !options.readOnly, syncState.isBehind(commitsMade) else { return }
        if mdb_env_sync(handle, 1) == 0 { Self.closingSyncs.add(1, ordering: .relaxed) }
    }

    /// Syncs made by environments as they closed, in this process (for tests).
    package static let closingSyncs = Atomic<Int>(0)
}

/// A commit whose meta page was not synced yet: the sync failures counted when it began committing.
package struct UnsyncedCommit: Sendable {
    fileprivate let failuresBefore: Int
}

/// The counts of an environment's syncs and the last commit one covered.
package final class SyncState: Sendable {
    private struct State {
        var counts = Environment.SyncCounts()
        var syncedThrough: UInt64 = 0
        var failure: LMDBError?
        /// Syncs and commits that failed with an I/O error, and the last one's error.
        var ioFailures = 0
        var lastIOFailure: LMDBError?
        /// The failures followed by a commit whose meta page was synced under the write lock.
        var clearedFailures = 0
    }

    private let state = LockedState(State())
    /// Held across each sync the environment makes, so that a sync's failure is counted before
    /// the next sync can return.
    private let syncLock = LockedState(())
    /// Held across each `mdb_txn_commit`, so that a commit's failure is counted before a sync
    /// waiting for it returns.
    private let commitLock = LockedState(())

    /// Runs `commit` (an `mdb_txn_commit`, the write lock held), counting an I/O failure.
    /// - Returns: its result, and the failures counted before it began.
    func committing(_ commit: () -> Int32) -> (code: Int32, commit: UnsyncedCommit) {
        commitLock.withLock { _ in
            let marker = unsyncedCommit()
            let code = commit()
            if code > 0 || code == MDB_PANIC { countIOFailure(LMDBError(code: code, operation: "mdb_txn_commit")) }
            return (code, marker)
        }
    }

    /// Returns once the `mdb_txn_commit` under way, if any, ended.
    func waitForCommitUnderWay() { commitLock.withLock { _ in } }

    /// Whether a failure was counted and no commit's meta page was synced after it.
    var hasUnclearedFailure: Bool { state.withLock { $0.ioFailures != $0.clearedFailures } }

    /// A commit that began after the failures counted in `commit` had its meta page synced.
    func cleared(through commit: UnsyncedCommit) {
        state.withLock { $0.clearedFailures = max($0.clearedFailures, commit.failuresBefore) }
    }

    /// Runs `sync` with the other syncs waiting, counting its failure.
    func syncing(_ sync: () throws(LMDBError) -> Void) throws(LMDBError) {
        try syncLock.withLock { _ throws(LMDBError) in
            do throws(LMDBError) { try sync() } catch {
                countIOFailure(error)
                throw error
            }
        }
    }

    /// Counts a failure that may have taken a writeback error meant for an unsynced commit.
    func countIOFailure(_ error: LMDBError) {
        state.withLock { state in
            state.ioFailures += 1
            state.lastIOFailure = error
        }
    }

    func unsyncedCommit() -> UnsyncedCommit {
        UnsyncedCommit(failuresBefore: state.withLock { $0.ioFailures })
    }

    /// The last failure counted since `commit` began committing, if one was.
    func failure(since commit: UnsyncedCommit) -> LMDBError? {
        state.withLock { $0.ioFailures == commit.failuresBefore ? nil : $0.lastIOFailure }
    }

    func count(_ kind: WritableKeyPath<Environment.SyncCounts, Int>) {
        state.withLock { $0.counts[keyPath: kind] += 1 }
    }

    var counts: Environment.SyncCounts { state.withLock { $0.counts } }

    /// A sync that began once `commits` commits had returned has completed.
    func synced(through commits: UInt64) {
        state.withLock { $0.syncedThrough = max($0.syncedThrough, commits) }
    }

    /// Keeps the error of a background sync for the next requested one.
    func failed(_ error: LMDBError) {
        state.withLock { $0.failure = $0.failure ?? error }
    }

    /// The error of a background sync since the last requested one, cleared.
    func takeFailure() -> LMDBError? {
        state.withLock { state in
            defer { state.failure = nil }
            return state.failure
        }
    }

    /// Whether commits returned since the last sync began (`commits` made so far).
    package func isBehind(_ commits: UInt64) -> Bool { state.withLock { $0.syncedThrough < commits } }
}
