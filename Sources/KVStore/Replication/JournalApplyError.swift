/// Journal entries that cannot be applied to a store.
public struct JournalApplyError: Error, Sendable, CustomStringConvertible {
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

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
