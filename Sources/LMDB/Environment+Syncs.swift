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

    /// Makes every commit that returned before the call durable: `fdatasync` of the data file
    /// (`mdb_env_sync(env, 1)`), which writes the meta pages LMDB wrote without syncing. Called
    /// for `.full` after the write lock is released; LMDB takes no lock for it, so the next write
    /// commits meanwhile (its pages may reach the disk early, which is harmless: LMDB writes a
    /// meta page only after the data pages it names were synced).
    package func syncCommitted() throws(LMDBError) {
        try syncFile()
        syncState.count(\.committed)
    }

    /// `mdb_env_sync(env, 1)`, noting the commits it covers for the periodic sync.
    func syncFile() throws(LMDBError) {
        let covered = commitsMade
        try LMDBError.check(mdb_env_sync(handle, 1), "mdb_env_sync")
        syncState.synced(through: covered)
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

/// The counts of an environment's syncs and the last commit one covered.
package final class SyncState: Sendable {
    private struct State {
        var counts = Environment.SyncCounts()
        var syncedThrough: UInt64 = 0
        var failure: LMDBError?
    }

    private let state = LockedState(State())

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
