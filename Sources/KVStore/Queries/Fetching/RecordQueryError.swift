/// A query that cannot run as given: a sort key that does not parse, a negative limit or offset.
///
/// One line naming the problem:
///
/// ```swift
/// do {
///     _ = try KeyPathSort(parsing: "published:newest")
/// } catch {
///     print(error)  // invalid sort key 'published:newest': unknown option 'newest'; …
/// }
/// ```
///
/// Predicate errors (syntax, an unbound `$variable`) are ``KeyPathPredicateError``s, and a bad
/// kind a ``RecordRefError``.
public struct RecordQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// Sort key text that does not parse (``KeyPathSort/init(parsing:)``).
        case invalidSort
        /// A negative ``RecordQuery/limit``.
        case invalidLimit
        /// A negative ``RecordQuery/offset``.
        case invalidOffset
    }

    /// What went wrong.
    public let code: Code
    /// The problem, as one line.
    public let message: String

    /// The message.
    public var description: String { message }

    init(_ code: Code, _ message: String) {
        self.code = code
        var oneLine = ""
        for scalar in message.unicodeScalars {
            oneLine += scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
        }
        self.message = oneLine
    }
}
