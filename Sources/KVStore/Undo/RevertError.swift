/// Why a commit could not be reverted (``Store/revert(commit:force:)``, ``UndoStack``).
///
/// ```swift
/// do {
///     try store.revert(commit: 12)
/// } catch let error as RevertError where error.code == .conflict {
///     print(error)   // cannot revert commit 12: commit 15 changed 'name' of person/ada after it; …
/// }
/// ```
///
/// Every description is one line naming the commit and, for a conflict, the later commit, the
/// record and the key.
public struct RevertError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for callers that switch on it.
    public enum Code: String, Sendable {
        /// No commit with that id is in the journal: never made (0, or past the last commit).
        case noSuchCommit
        /// The commit's entries were truncated from the journal (``Store/truncateJournal(before:force:)``).
        case truncated
        /// A later commit changed a key (or the record) the commit changed; `force` reverts anyway.
        case conflict
        /// The commit changed the kind catalog, which a revert does not undo.
        case notRevertible
    }

    /// What went wrong.
    public let code: Code
    /// The commit that was to be reverted.
    public let commit: UInt64
    /// The record concerned (a conflict, a catalog change), when there is one.
    public let ref: RecordRef?
    /// The key path concerned (a conflict on a key), when there is one.
    public let keyPath: String?
    /// For a conflict, the later commit that changed the same key or record.
    public let laterCommit: UInt64?
    /// The problem, in one line.
    public let message: String

    init(_ code: Code, _ commit: UInt64, _ message: String, ref: RecordRef? = nil, keyPath: String? = nil, laterCommit: UInt64? = nil) {
        self.code = code
        self.commit = commit
        self.message = message
        self.ref = ref
        self.keyPath = keyPath
        self.laterCommit = laterCommit
    }

    /// `cannot revert commit N: ` and the problem (for a conflict, with a hint that `force`
    /// reverts anyway).
    public var description: String {
        "cannot revert commit \(commit): \(message)" + (code == .conflict ? "; force: true reverts anyway" : "")
    }
}
