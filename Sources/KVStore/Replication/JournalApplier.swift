import Foundation

/// Applies journal entries to a store, one write transaction per batch of whole commits, each
/// source commit under its own commit id. The one place entries are applied: replication
/// (`journal apply`) and replay (`replay`, `verify`) both go through it.
package struct JournalApplier {
    package enum Mode {
        /// A replica of `source`: entries at or before the store's checkpoint for `source` are
        /// skipped, a later one must follow it, and the checkpoint is saved with every batch.
        /// Entries are stamped with their origin: the store where they were first made.
        case replica(source: UUID)
        /// A rebuild from another store's journal: entries keep the origin they have (none for
        /// the source's local changes); no checkpoint.
        case rebuild
    }

    package let store: Store
    package let mode: Mode
    /// The source's last sequence as far as known (a replica's lag is measured against it),
    /// saved with the checkpoint; nil when unknown (the last value saved stays).
    package var sourceLastSequence: UInt64?

    package init(store: Store, mode: Mode, sourceLastSequence: UInt64? = nil) {
        self.store = store
        self.mode = mode
        self.sourceLastSequence = sourceLastSequence
    }

    /// What applying a batch did.
    package struct Outcome {
        package var applied = 0
        package var skipped = 0
        /// Source commits gone through (applied or skipped).
        package var commits = 0
    }

    /// Applies `commits` (each one source commit's entries, in order) in one write transaction:
    /// all of them, or — on an error — none. While the store has in-process observers, only the
    /// first commit goes in (observers are told per transaction, and each source commit must
    /// reach them as a commit of its own); ``Outcome/commits`` says how many went in.
    package func apply(_ commits: ArraySlice<[JournalEntry]>) throws -> Outcome {
        try store.write { txn in
            var outcome = Outcome()
            txn.isApplying = true
            let observed = store.observation.isObserved  // stable: no observer starts during a write
            var checkpoint: UInt64?
            if case .replica(let source) = mode { checkpoint = try txn.replicationCheckpoint(for: source) }
            for commit in commits {
                if observed && outcome.commits == 1 { break }
                outcome.commits += 1
                txn.startNextCommit()
                for entry in commit {
                    if let applied = checkpoint {
                        if entry.sequence <= applied { outcome.skipped += 1; continue }
                        guard entry.sequence == applied + 1 else {
                            throw JournalApplyError(.gap, "source \(entries(applied + 1, through: entry.sequence - 1)) \(are(applied + 1, through: entry.sequence - 1)) missing: \(store.path) has applied the source through \(applied), the next entry offered is \(entry.sequence)")
                        }
                        checkpoint = entry.sequence
                    }
                    let origin = self.origin(of: entry)
                    if entry.isDerived || origin?.storeID == store.id { outcome.skipped += 1; continue }
                    txn.origin = origin
                    if let problem = try txn.apply(entry) {
                        throw JournalApplyError(.diverged, "\(diverged) at \(sourceName) sequence \(entry.sequence) (\(entry.change.rawValue) of \(entry.ref)\(entry.keyPath.map { " \($0)" } ?? "")): \(problem); nothing of commit \(entry.commitID) was applied")
                    }
                    outcome.applied += 1
                }
            }
            txn.origin = nil
            if case .replica(let source) = mode, let checkpoint {
                try txn.setReplicationCheckpoint(checkpoint, for: source)
                try txn.setSourceLastSequence(sourceLastSequence, applied: checkpoint, for: source)
                try txn.becomeReplica(of: source)
            }
            return outcome
        }
    }

    private func origin(of entry: JournalEntry) -> JournalOrigin? {
        switch mode {
        case .replica(let source): entry.origin ?? JournalOrigin(storeID: source, sequence: entry.sequence)
        case .rebuild: entry.origin
        }
    }

    private var diverged: String {
        switch mode {
        case .replica: "replica \(store.path) diverged"
        case .rebuild: "replay into \(store.path) diverged"
        }
    }

    private var sourceName: String {
        switch mode {
        case .replica: "source"
        case .rebuild: "journal"
        }
    }

    /// Gathers commits into batches of about `entries` entries and applies each batch.
    package struct Batcher {
        package var applier: JournalApplier
        package let limit: Int
        private var commits: [[JournalEntry]] = []
        private var size = 0
        package private(set) var outcome = Outcome()
        /// Called after each batch with the number of entries it held.
        package var progress: ((Int) -> Void)?

        /// The source's last sequence as far as known, saved with the next batch's checkpoint.
        package var sourceLastSequence: UInt64? {
            get { applier.sourceLastSequence }
            set { applier.sourceLastSequence = newValue }
        }

        package init(applier: JournalApplier, limit: Int = 10_000, sourceLastSequence: UInt64? = nil, progress: ((Int) -> Void)? = nil) {
            self.applier = applier
            if let sourceLastSequence { self.applier.sourceLastSequence = sourceLastSequence }
            self.limit = limit
            self.progress = progress
        }

        package mutating func add(_ commit: [JournalEntry]) throws {
            commits.append(commit)
            size += commit.count
            if size >= limit { try flush() }
        }

        package mutating func flush() throws {
            guard !commits.isEmpty else { return }
            var next = commits.startIndex
            while next < commits.endIndex {
                let done = try applier.apply(commits[next...])
                outcome.applied += done.applied
                outcome.skipped += done.skipped
                next += done.commits
            }
            progress?(size)
            commits = []
            size = 0
        }
    }
}
