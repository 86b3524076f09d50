/// Journal entries that cannot be applied to a store, by
/// ``Store/applyJournal(_:progress:sourceLastSequence:)`` or
/// ``Store/replayJournal(into:until:progress:)``. The message names the problem and what it
/// concerns (the source sequence, change and record; or the store refused), as one line.
///
/// ```swift
/// do {
///     try replica.applyJournal(reader)
/// } catch let error as JournalApplyError {
///     if error.code == .gap { /* export the source's journal after the replica's checkpoint, apply that */ }
/// }
/// ```
public struct JournalApplyError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for callers that switch on it.
    public enum Code: String, Sendable {
        /// The store's records disagree with an entry (a record to insert exists, a record to
        /// change is missing, an index is out of range): the store is not the copy the entry
        /// was made on.
        case diverged
        /// Entries between the store's checkpoint and the first entry offered are missing.
        case gap
        /// The entries come from this very store.
        case sameStore
        /// Replay needs the whole journal, but its start was truncated.
        case journalTruncated
        /// Replay rebuilds into an empty store only.
        case targetNotEmpty
    }

    /// What went wrong.
    public let code: Code
    /// The problem, naming the store and the entry concerned.
    public let message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
