/// A predicate that does not parse, or cannot be evaluated.
///
/// One line, naming where and what: `expected a value after '==' at line 1, column 9`.
///
/// ```swift
/// do {
///     _ = try KeyPathPredicate("age >= ")
/// } catch {
///     print(error)  // expected a value after '>=' at line 1, column 8
/// }
/// ```
public struct KeyPathPredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// Text that is not a predicate: an unexpected or missing token.
        case syntax
        /// A literal that is malformed: an integer out of range, a bad escape, a bad date.
        case invalidLiteral
        /// A key path that ``KeyValuePath`` refuses.
        case invalidKeyPath
        /// Parentheses, `NOT`s, lists or subqueries nested deeper than ``KeyPathPredicate/maximumNesting``.
        case nestedTooDeeply
        /// A `MATCHES` pattern that is not a regular expression.
        case invalidRegularExpression
        /// A `MATCHES` pattern that takes more than 20,000,000 steps of the regular expression
        /// engine to match one value: one that backtracks exponentially, such as `(a+)+b`.
        case regularExpressionTooCostly
        /// A `$variable` with no value given.
        case unboundVariable
    }

    /// What went wrong.
    public let code: Code
    /// The problem, without the position.
    public let message: String
    /// The line (from 1) of the problem in the predicate's text; nil for evaluation errors.
    public let line: Int?
    /// The column (from 1, in Unicode scalars) of the problem; nil for evaluation errors.
    public let column: Int?

    /// The message, then the position when there is one.
    public var description: String {
        guard let line, let column else { return message }
        return "\(message) at line \(line), column \(column)"
    }

    /// An error; control characters in `message` (from a quoted key or string) are escaped so
    /// that it stays one line.
    init(_ code: Code, _ message: String, line: Int? = nil, column: Int? = nil) {
        self.code = code
        var oneLine = ""
        for scalar in message.unicodeScalars {
            oneLine += scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
        }
        self.message = oneLine
        self.line = line
        self.column = column
    }
}
