import Foundation

/// Rebuilding a store as it was at a point of its history, from its journal.
extension Store {
    /// Where a replay stops.
    public enum ReplayLimit: Sendable, Equatable {
        /// Through the entry with this sequence (inside a commit, the state part way through it).
        case sequence(UInt64)
        /// Through the last entry before the first one made after this time.
        case time(Date)
    }

    /// Replays this store's journal from its first entry into `target`, an empty store, through
    /// `until` (the whole journal when nil).
    /// - Returns: the entries replayed and the last one's sequence (0 when none).
    ///
    /// ```swift
    /// let copy = try Store(path: "/tmp/as-of-42")
    /// try store.replayJournal(into: copy, until: .sequence(42))
    /// ```
    /// Each source commit is replayed under its own commit id, with the entries' own origins
    /// (none for this store's local changes): the rebuilt store is a new store (new id) whose
    /// journal restates the history, not a replica (no checkpoint is kept).
    /// - Throws: ``JournalApplyError`` `journalTruncated` when the journal no longer starts at
    ///   sequence 1, `targetNotEmpty`, `diverged`; ``StoreError/Code/corrupt`` for an entry that
    ///   does not decode or a gap in the journal.
    @discardableResult
    public func replayJournal(into target: Store, until: ReplayLimit? = nil, progress: ((Int) -> Void)? = nil) throws -> (entries: Int, through: UInt64) {
        try checkReplayable()
        return try replayJournal(into: target, until: until, progress: progress) { try read($0) }
    }

    /// ``replayJournal(into:until:progress:)`` without checking the journal starts at 1, reading
    /// it in chunks through `reading`: short read transactions of their own, or one snapshot.
    @discardableResult
    func replayJournal(
        into target: Store, until: ReplayLimit?, progress: ((Int) -> Void)?,
        reading: ((ReadTransaction) throws -> [JournalEntry]) throws -> [JournalEntry]
    ) throws -> (entries: Int, through: UInt64) {
        let (targetLast, targetKinds) = try target.read { txn in (try txn.lastSequence(), try txn.kinds()) }
        guard targetLast == 0, targetKinds.isEmpty else {
            throw JournalApplyError(.targetNotEmpty, "\(target.path) is not an empty store: replay rebuilds into a new one")
        }
        var batcher = JournalApplier.Batcher(applier: JournalApplier(store: target, mode: .rebuild), progress: progress)
        var next: UInt64 = 1
        var open: [JournalEntry] = []
        var count = 0
        var reachedLimit = false
        while !reachedLimit {
            let chunk = try reading { txn in
                var chunk: [JournalEntry] = []
                try txn.forEachJournalEntry(from: next) { entry in
                    guard entry.sequence == next + UInt64(chunk.count) else {
                        throw StoreError(.corrupt, "the journal has a gap: entry \(next + UInt64(chunk.count)) is missing", path: path)
                    }
                    if !Self.isWithin(entry, until) { reachedLimit = true; return false }
                    chunk.append(entry)
                    return chunk.count < 4096
                }
                return chunk
            }
            guard let lastInChunk = chunk.last else { break }
            for entry in chunk {
                if let openCommit = open.first?.commitID, openCommit != entry.commitID {
                    try batcher.add(open)
                    open = []
                }
                open.append(entry)
            }
            count += chunk.count
            next = lastInChunk.sequence + 1
        }
        if !open.isEmpty { try batcher.add(open) }
        try batcher.flush()
        return (count, next - 1)
    }

    /// Checks that the journal still starts at sequence 1 (or is empty and always was), as a
    /// replay needs.
    /// - Throws: ``JournalApplyError/Code/journalTruncated``.
    package func checkReplayable() throws {
        let (first, last) = try read { txn in (try txn.firstSequence(), try txn.lastSequence()) }
        if first != 1 && !(first == nil && last == 0) {
            throw JournalApplyError(.journalTruncated, "\(path)'s journal was truncated (it starts at \(first.map { "sequence \($0)" } ?? "nothing, after \(last) entries")): replay needs it from sequence 1")
        }
    }

    private static func isWithin(_ entry: JournalEntry, _ limit: ReplayLimit?) -> Bool {
        switch limit {
        case nil: true
        case .sequence(let last): entry.sequence <= last
        case .time(let time): entry.timestamp <= time
        }
    }
}
