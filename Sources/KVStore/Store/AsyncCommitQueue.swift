import Dispatch
import LMDB

/// The pipeline of the async `Store.write` — lmdb-js's shape: callers queue
/// without holding a thread, one committer thread commits everything queued as one group, and a
/// syncer thread makes each group durable and resumes its callers while the next group commits.
///
/// 1. ``submit(_:)`` queues a write. When the committer is idle it starts a round.
/// 2. A round takes every queued write and runs them together (`Environment.writeDeferringSync`):
///    one LMDB write transaction, each write in a nested transaction of its own, one commit (under
///    `.full`, its data pages synced; its meta page not yet); the round hands the group to the
///    syncer and takes the writes queued meanwhile.
/// 3. The syncer syncs once for every group handed to it that still needs a sync
///    (`Environment.syncMetaPages()`; a group fails when the sync failed or a failure was
///    counted since it began committing: `syncFailure(since:)`), then delivers each write's
///    notifications and resumes its caller, in commit order. A caller is resumed only once its commit is durable at the store's durability.
///
/// One pipeline per environment, shared by every ``Store`` open on it (``StoreThreads``).
final class AsyncCommitQueue: Sendable {
    /// One queued write: its part in the group, and how to end it.
    struct Job: Sendable {
        let environment: Environment
        let write: GroupedWrite
        /// Resumes the caller: with the sync's error when the group's sync failed, else with the
        /// write's own outcome.
        let finish: @Sendable (_ syncError: (any Error)?) -> Void
    }

    private struct State {
        var queued: [Job] = []
        var committing = false
        /// Groups committed, waiting for the syncer: each one's commit when it still needs a sync.
        var committed: [(jobs: [Job], unsynced: UnsyncedCommit?)] = []
        var syncing = false
    }

    private let state = LockedState(State())
    private let committer = DispatchQueue(label: "kvstore.commit")
    private let syncer = DispatchQueue(label: "kvstore.sync")
    /// False: each round commits one write (``Store/Options/groupsCommits`` off).
    private let grouping: Bool

    init(grouping: Bool = true) {
        self.grouping = grouping
    }

    /// Queues `job`; its `finish` is called once it committed (durably) or failed.
    func submit(_ job: Job) {
        let start = state.withLock { state in
            state.queued.append(job)
            defer { state.committing = true }
            return !state.committing
        }
        if start { committer.async { self.commitRounds() } }
    }

    /// The writes queued and not yet committed (tests wait on it).
    var queuedCount: Int { state.withLock { $0.queued.count } }

    /// Commits what is queued, group after group, until nothing is.
    private func commitRounds() {
        while true {
            let jobs = state.withLock { state -> [Job] in
                let count = grouping ? state.queued.count : min(1, state.queued.count)
                if count == 0 { state.committing = false }
                defer { state.queued.removeFirst(count) }
                return Array(state.queued.prefix(count))
            }
            guard let first = jobs.first else { return }
            var unsynced: UnsyncedCommit?
            var failure: (any Error)?
            do { unsynced = try first.environment.writeDeferringSync(jobs.map(\.write)) } catch { failure = error }
            if let failure {
                for job in jobs { job.finish(failure) }
                continue
            }
            let start = state.withLock { state in
                state.committed.append((jobs, unsynced))
                defer { state.syncing = true }
                return !state.syncing
            }
            if start { syncer.async { self.syncRounds() } }
        }
    }

    /// Syncs once for the groups committed since the last sync and ends their writes, until none is left.
    private func syncRounds() {
        while true {
            let groups = state.withLock { state in
                if state.committed.isEmpty { state.syncing = false }
                defer { state.committed = [] }
                return state.committed
            }
            guard let environment = groups.first?.jobs.first?.environment else { return }
            var syncError: (any Error)?
            if groups.contains(where: { $0.unsynced != nil }) {
                do { try environment.syncMetaPages() } catch { syncError = error }
            }
            for group in groups {
                let error = group.unsynced.flatMap { syncError ?? environment.syncFailure(since: $0) }
                for job in group.jobs { job.finish(error) }
            }
        }
    }
}
