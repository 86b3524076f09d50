/// Bytes that are not a valid encoding of a ``Value`` or of a record: truncated, corrupt, or written
/// by a newer build.
///
/// The decoders never trap on bad input; they throw this error instead, naming the byte offset where
/// the problem was found:
///
/// ```swift
/// do {
///     _ = try ValueCodec.decode([1, 0x3f])
/// } catch {
///     print(error)   // "unknown value tag 0x3f at offset 1"
/// }
/// ```
package struct ValueDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The offset, from the start of the decoded buffer, of the byte where the problem was found.
    package let offset: Int
    /// What is wrong, e.g. "truncated string" or "unknown value tag 0x3f".
    package let problem: String

    package init(offset: Int, problem: String) {
        self.offset = offset
        self.problem = problem
    }

    /// `problem at offset N`, e.g. "truncated string at offset 17".
    package var description: String { "\(problem) at offset \(offset)" }
}
