/// A problem with a durable journal consumer or with truncating the journal: an unknown or
/// invalid consumer name, a cursor the journal no longer covers, a truncation a consumer holds back.
///
/// ```swift
/// do {
///     for entry in try store.consumer(named: "indexer").entries() { index(entry) }
/// } catch let error as JournalRetentionError {
///     if error.code == .cursorExpired { /* truncated past the cursor: rebuild, then reset it */ }
/// }
/// ```
///
/// Every description reads as one line on a terminal and names the store, the consumer and the
/// sequences involved.
public struct JournalRetentionError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for callers that switch on it.
    public enum Code: String, Sendable {
        /// A consumer name is empty, too long, or holds whitespace or control characters.
        case invalidConsumerName
        /// No consumer of that name is registered.
        case unknownConsumer
        /// A consumer of that name is already registered.
        case consumerExists
        /// The journal was truncated past the consumer's cursor: entries it has not processed are gone.
        case cursorExpired
        /// A cursor was moved backwards (without ``JournalConsumer/reset(to:)``), or past the
        /// journal's last sequence.
        case invalidCursor
        /// A truncation would drop entries a registered consumer has not processed (and was not forced).
        case truncationBlocked
        /// A truncation point lies past the journal's last sequence + 1.
        case invalidTruncationPoint
    }

    /// What went wrong.
    public let code: Code
    /// The problem, naming the consumer and the sequences concerned.
    public let message: String
    /// The store's directory.
    public let path: String
    /// The consumer concerned, when there is one.
    public let consumer: String?

    /// An error with `code` and `message` about the store at `path` and, when there is one, the
    /// consumer `consumer`.
    public init(_ code: Code, _ message: String, path: String, consumer: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.consumer = consumer
    }

    /// The store's directory and the message.
    public var description: String { "\(path): \(message)" }
}
