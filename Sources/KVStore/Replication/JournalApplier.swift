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
            var pass = try Pass(self, txn)
            for commit in commits {
                guard pass.startCommit() else { break }
                for entry in commit { try pass.apply(entry) }
            }
            return try pass.finish()
        }
    }

    /// Applies the whole commits of `batch` from entry `start` on in one write transaction, as
    /// the decoded commits' ``apply(_:)`` does; record insertions kept encoded go in as their bytes
    /// (``EncodedInsertionWriter``) unless the store has in-process observers or its catalog
    /// declares the record's kind: those are decoded and applied as the decoded entries are.
    /// - Returns: what was applied, and the index of the first entry not gone through (the
    ///   batch's end, or the next commit's start while the store has observers).
    func apply(_ batch: SourceEntries, from start: Int) throws -> (outcome: Outcome, end: Int) {
        try store.write { txn in
            var pass = try Pass(self, txn)
            var writer = EncodedInsertionWriter(transaction: txn)
            let entries = batch.entries
            let end = try batch.bytes.withUnsafeBytes { bytes in
                var index = start
                while index < entries.count, pass.startCommit() {
                    let commit = entries[index].commitID
                    repeat {
                        if case .encoded(let insertion) = entries[index].form, !pass.observed, try writer.applies(insertion, in: bytes) {
                            try pass.apply(insertion, sequence: entries[index].sequence, commit: commit, with: &writer, in: bytes)
                        } else {
                            let entry = try batch.decoded(index, in: bytes)
                            try pass.apply(entry)
                            // The catalog the writer asked about the kind of its records changed.
                            if entry.change == .kindDeclared { try writer.forgetKind() }
                        }
                        index += 1
                    } while index < entries.count && entries[index].commitID == commit
                }
                return index
            }
            try writer.finish()
            return (try pass.finish(), end)
        }
    }

    /// Applies all of `batch`, in as many transactions as ``apply(_:from:)`` takes.
    func apply(_ batch: SourceEntries) throws -> Outcome {
        var total = Outcome()
        var next = 0
        while next < batch.count {
            let (outcome, end) = try apply(batch, from: next)
            total.applied += outcome.applied
            total.skipped += outcome.skipped
            total.commits += outcome.commits
            next = end
        }
        return total
    }

    /// One apply's write transaction: the checkpoint as it advances, and what was done.
    private struct Pass {
        let applier: JournalApplier
        let txn: WriteTransaction
        /// Whether the store has observers in this process (stable: no observer starts during a write).
        let observed: Bool
        var outcome = Outcome()
        var checkpoint: UInt64?
        /// The store's own id as text, to recognise entries that originated here.
        let storeText: [UInt8]
        /// The source's id as text, the origin of a replica's entries that have none (empty when
        /// rebuilding: those keep none).
        let sourceText: [UInt8]

        init(_ applier: JournalApplier, _ txn: WriteTransaction) throws {
            self.applier = applier
            self.txn = txn
            txn.isApplying = true
            observed = applier.store.observation.isObserved
            storeText = Array(applier.store.id.lowercasedText.utf8)
            if case .replica(let source) = applier.mode {
                checkpoint = try txn.replicationCheckpoint(for: source)
                sourceText = Array(source.lowercasedText.utf8)
            } else {
                sourceText = []
            }
        }

        /// Starts the next source commit under a commit id of its own.
        /// - Returns: false when it must wait for another transaction (the store has observers, and a
        ///   commit went in).
        mutating func startCommit() -> Bool {
            if observed && outcome.commits == 1 { return false }
            outcome.commits += 1
            txn.startNextCommit()
            return true
        }

        /// Moves the checkpoint past `sequence`.
        /// - Returns: false when it was applied before.
        /// - Throws: ``JournalApplyError/Code/gap`` when entries before it are missing.
        mutating func admit(_ sequence: UInt64) throws -> Bool {
            guard let applied = checkpoint else { return true }
            if sequence <= applied { outcome.skipped += 1; return false }
            guard sequence == applied + 1 else {
                throw JournalApplyError(.gap, "source \(entries(applied + 1, through: sequence - 1)) \(are(applied + 1, through: sequence - 1)) missing: \(applier.store.path) has applied the source through \(applied), the next entry offered is \(sequence)")
            }
            checkpoint = sequence
            return true
        }

        mutating func apply(_ entry: JournalEntry) throws {
            guard try admit(entry.sequence) else { return }
            let origin = applier.origin(of: entry)
            if entry.isDerived || origin?.storeID == applier.store.id { outcome.skipped += 1; return }
            txn.origin = origin
            // An entry from another store keeps its stamp; a rebuild's local entry takes this store's.
            txn.appliedStamp = origin == nil ? nil : entry.stamp ?? HybridTime(legacy: entry.timestamp)
            txn.appliedStampIsLegacy = entry.stamp == nil
            defer { (txn.appliedStamp, txn.appliedStampIsLegacy) = (nil, false) }
            var changed = true
            let problem = entry.change == .kindDeclared ? try txn.applyDeclaration(entry, changed: &changed) : try txn.apply(entry)
            if let problem {
                throw applier.divergence(problem, sequence: entry.sequence, change: entry.change, ref: "\(entry.ref)", keyPath: entry.keyPath, commit: entry.commitID)
            }
            // A declaration this store has already (each store opened with the same kinds declares them).
            if changed { outcome.applied += 1 } else { outcome.skipped += 1 }
        }

        mutating func apply(
            _ insertion: EncodedInsertion, sequence: UInt64, commit: UInt64, with writer: inout EncodedInsertionWriter,
            in bytes: UnsafeRawBufferPointer
        ) throws {
            guard try admit(sequence) else { return }
            // The origin: the entry's own, or (a replica's) the source.
            let entryOrigin = insertion.originStore.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
            if entryOrigin.map({ $0.elementsEqual(storeText) }) ?? (sourceText == storeText) { outcome.skipped += 1; return }
            let problem = try sourceText.withUnsafeBytes { source in
                let store = entryOrigin ?? (source.isEmpty ? nil : source)
                return try writer.insert(insertion, origin: store.map { ($0, entryOrigin == nil ? sequence : insertion.originSequence) }, in: bytes)
            }
            if let problem {
                let ref = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[insertion.kind.lowerBound ..< insertion.id.upperBound]), as: UTF8.self)
                throw applier.divergence(problem, sequence: sequence, change: .recordInserted, ref: ref, keyPath: nil, commit: commit)
            }
            outcome.applied += 1
        }

        /// Saves the checkpoint (a replica's) with the source's last sequence.
        /// - Returns: the outcome.
        func finish() throws -> Outcome {
            txn.origin = nil
            if case .replica(let source) = applier.mode, let checkpoint {
                try txn.setReplicationCheckpoint(checkpoint, for: source)
                try txn.setSourceLastSequence(applier.sourceLastSequence, applied: checkpoint, for: source)
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

    private func divergence(_ problem: String, sequence: UInt64, change: ChangeKind, ref: String, keyPath: String?, commit: UInt64) -> JournalApplyError {
        JournalApplyError(.diverged, "\(diverged) at \(sourceName) sequence \(sequence) (\(change.rawValue) of \(ref)\(keyPath.map { " \($0)" } ?? "")): \(problem); nothing of commit \(commit) was applied")
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

    /// Gathers commits into batches of about `entries` entries and applies each batch, record
    /// insertions read as their bytes as ``apply(_:from:)`` applies them.
    package struct Batcher {
        package var applier: JournalApplier
        package let limit: Int
        private var batch = SourceEntries()
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
            for entry in commit { batch.append(decoded: entry) }
            if batch.count >= limit { try flush() }
        }

        /// Adds one commit's entries.
        mutating func add(_ commit: SourceEntries) throws {
            batch.append(contentsOf: commit)
            if batch.count >= limit { try flush() }
        }

        package mutating func flush() throws {
            guard !batch.isEmpty else { return }
            let done = try applier.apply(batch)
            outcome.applied += done.applied
            outcome.skipped += done.skipped
            progress?(batch.count)
            batch.removeAll()
        }
    }
}
