import Foundation

/// Applying another store's journal stream: this store becomes (or stays) its replica.
extension Store {
    /// What ``Store/applyJournal(_:progress:sourceLastSequence:)`` did.
    public struct JournalApplySummary: Sendable, Equatable {
        /// Entries applied to this store's records.
        public var applied: Int
        /// Entries skipped: already applied (at or before the checkpoint), derived, made by
        /// this store itself (they came back through another replica), or kind declarations this
        /// store's catalog holds already.
        public var skipped: Int
        /// The last source sequence applied, after the apply.
        public var checkpoint: UInt64
    }

    /// Applies the stream's commits, exactly once: each source commit gets its own commit id
    /// here, and the checkpoint (source store id, last applied source sequence) is saved in the
    /// same transaction as the changes — in batches of about 10,000 entries per transaction (of an
    /// open-ended stream, also whenever all that arrived so far was read), or one source commit
    /// per transaction while the store has observers in this process (so that they are told of
    /// each commit, with its own net changes).
    /// Entries already applied are skipped, so applying a stream twice changes nothing.
    ///
    /// ```swift
    /// let reader = try JournalStreamReader(fileDescriptor: fd)
    /// let summary = try replica.applyJournal(reader)     // summary.applied, .skipped, .checkpoint
    /// ```
    /// This store journals what it applies with the entry's origin: the store where the change
    /// was first made (the entry's own origin when the source is itself a replica), so replicas
    /// chain A → B → C, and changes that originated here are skipped instead of looping back.
    /// This store's kind catalog applies: a change it refuses (an undeclared key of a closed kind,
    /// a value of another type than declared) stops the apply as a divergence; the stream's
    /// `kindDeclared` entries change this catalog as they changed the source's. Hooks and
    /// validators, which are per process, are not run again: the source ran them.
    ///
    /// The source's last sequence, for the replica's lag (``ReadTransaction/replicationSources()``),
    /// is saved with each checkpoint: the stream header's when it has one; for an open-ended stream
    /// the latest position frame's (a journal server sends them) or the last entry read — or, when
    /// a transport knows the source's live position, what `sourceLastSequence` returns, asked
    /// before each commit is added.
    ///
    /// A stream error or a divergence stops the apply; batches applied before it stay applied
    /// with their checkpoint, so a later apply continues from there. When the source ends the
    /// stream with an error frame (``JournalStreamError/Code/sourceFailed``), every whole commit
    /// before it is applied first. Check a stream first (read
    /// it through with ``JournalStreamReader``) to make the whole apply all or nothing.
    /// - Throws: ``JournalApplyError`` (`sameStore`, `gap`, `diverged`), ``JournalStreamError``.
    @discardableResult
    public func applyJournal(
        _ reader: JournalStreamReader, progress: ((Int) -> Void)? = nil, sourceLastSequence: (() -> UInt64?)? = nil
    ) throws -> JournalApplySummary {
        let source = try checkApplicable(reader.header)
        var batcher = JournalApplier.Batcher(
            applier: JournalApplier(store: self, mode: .replica(source: source)),
            sourceLastSequence: reader.sourceLastSequence, progress: progress)
        while let item = try nextItem(of: reader, flushingOnSourceError: &batcher) {
            if let live = sourceLastSequence?() ?? reader.sourceLastSequence { batcher.sourceLastSequence = live }
            if case .commit(let commit) = item { try batcher.add(commit) }
            // An open-ended stream (a follow export) may pause for a while: apply what arrived
            // before waiting for more.
            if reader.header.lastSequence == nil && !reader.hasBufferedBytes { try batcher.flush() }
        }
        try batcher.flush()
        return JournalApplySummary(
            applied: batcher.outcome.applied, skipped: batcher.outcome.skipped,
            checkpoint: try read { try $0.replicationCheckpoint(for: source) })
    }

    /// The reader's next item; when the source ended the stream with an error frame, the whole
    /// commits read before it are applied first.
    private func nextItem(of reader: JournalStreamReader, flushingOnSourceError batcher: inout JournalApplier.Batcher) throws -> JournalStreamReader.RawItem? {
        do {
            return try reader.nextRawItem(keepingInsertionsEncoded: true)
        } catch {
            if error.code == .sourceFailed || error.code == .sourceInterrupted { try batcher.flush() }
            throw error
        }
    }

    /// Checks that a stream with `header` can be applied here: it is another store's, and it
    /// starts no later than the entry after this store's checkpoint for it.
    /// - Returns: the source store's id.
    @discardableResult
    package func checkApplicable(_ header: JournalStreamHeader) throws -> UUID {
        guard header.storeID != id else {
            throw JournalApplyError(.sameStore, "the stream is \(path)'s own journal; a store cannot replicate itself")
        }
        let checkpoint = try read { try $0.replicationCheckpoint(for: header.storeID) }
        if header.firstSequence > checkpoint + 1 {
            throw JournalApplyError(.gap, "source \(entries(checkpoint + 1, through: header.firstSequence - 1)) \(are(checkpoint + 1, through: header.firstSequence - 1)) missing: \(path) has applied source \(header.storeID.lowercasedText) through \(checkpoint), but the stream starts at \(header.firstSequence)")
        }
        return header.storeID
    }
}
