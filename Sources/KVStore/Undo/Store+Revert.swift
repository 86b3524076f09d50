/// Reverting a commit as a new commit.
extension Store {
    /// Writes the inverse of commit `commit` as a new commit — an ordinary one: journaled,
    /// replicated and observed like any other, so reverting it again (redo) is a revert too.
    /// See ``WriteTransaction/revert(commit:force:)`` for what is inverted and how.
    ///
    /// ```swift
    /// let undo = try store.revert(commit: 12)          // the new commit's id
    /// try store.revert(commit: undo!)                   // redo
    /// ```
    /// - Parameters:
    ///   - commit: the id of the commit to invert (``JournalEntry/commitID``).
    ///   - force: revert even when a later commit changed the same key or record.
    /// - Returns: the new commit's id; nil when the inverse changed nothing (a commit of derived
    ///   changes only, or — forced — values already back).
    /// - Throws: ``RevertError``, or what the write path throws for an inverse change; nothing
    ///   is written then.
    @discardableResult
    public func revert(commit: UInt64, force: Bool = false) throws -> UInt64? {
        try revert(commit: commit, force: force, ignoring: [])
    }

    /// ``revert(commit:force:)`` with ``WriteTransaction/revert(commit:force:ignoring:)``.
    func revert(commit: UInt64, force: Bool, ignoring ignored: Set<UInt64>) throws -> UInt64? {
        try write { txn in
            try txn.revert(commit: commit, force: force, ignoring: ignored)
            return txn.commitID
        }
    }
}
