/// Finding one commit's entries in the journal.
extension ReadTransaction {
    /// The journal entries of commit `commit`, in order, found by a binary search over the
    /// sequences (commit ids grow with them).
    /// - Throws: ``RevertError`` `noSuchCommit`, or `truncated` when the journal no longer holds
    ///   all of the commit (its first entry is at or after the commit's start).
    func entries(ofCommit commit: UInt64) throws -> [JournalEntry] {
        let lastCommit = try transaction.uint64(forKey: StoreLayout.MetaKey.lastCommit, in: databases.meta) ?? 0
        guard commit >= 1, commit <= lastCommit else {
            let made = lastCommit == 0 ? "the store has made no commits yet" : "the journal's commits are 1 through \(lastCommit)"
            throw RevertError(.noSuchCommit, commit, "no such commit: \(made)")
        }
        let last = try lastSequence()
        guard let first = try firstSequence(), let oldest = try entry(atOrAfter: first) else {
            throw truncated(commit, "the journal holds no entries now (all \(last) were truncated)")
        }
        // A truncation may split a commit: when the oldest entry kept is the commit's, the
        // entries before it may be gone.
        if oldest.commitID > commit || (oldest.commitID == commit && first > 1) {
            throw truncated(commit, "the journal keeps sequences \(first) through \(last) (from commit \(oldest.commitID) on)")
        }
        var (low, high) = (first, last + 1)  // the first sequence whose commit is >= `commit` is in low..<high
        while low < high {
            let middle = low + (high - low) / 2
            if let entry = try entry(atOrAfter: middle), entry.commitID < commit { low = entry.sequence + 1 } else { high = middle }
        }
        var found: [JournalEntry] = []
        try forEachJournalEntry(from: low) { entry in
            guard entry.commitID == commit else { return false }
            found.append(entry)
            return true
        }
        if found.isEmpty { throw RevertError(.noSuchCommit, commit, "no such commit: the journal has no entry of it") }
        return found
    }

    private func entry(atOrAfter sequence: UInt64) throws -> JournalEntry? {
        try journalEntries(from: sequence, limit: 1).first
    }

    private func truncated(_ commit: UInt64, _ retention: String) -> RevertError {
        RevertError(.truncated, commit, "its entries were truncated from the journal: \(retention)")
    }
}
