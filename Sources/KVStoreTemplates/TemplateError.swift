/// A problem with a template or with rendering it, naming where in the template it is.
///
/// ```swift
/// do { _ = try Template("Hello [[name") } catch { print(error) }
/// // template line 1, column 7: '[[' is not closed by ']]'
/// ```
public struct TemplateError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable {
        /// A `[[` without its `]]`.
        case unclosedTag
        /// A tag with no key path: `[[ ]]`, `[[raw]]`.
        case emptyTag
        /// A tag whose key path does not parse.
        case invalidKeyPath
        /// A key path with no value, when rendering strictly.
        case undefinedValue
    }

    /// A place in the template: 1-based line, and 1-based column counted in characters.
    public struct Position: Sendable, Hashable, CustomStringConvertible {
        /// The line, from 1.
        public var line: Int
        /// The column in the line, from 1, counted in characters.
        public var column: Int

        /// The place at `line` and `column`, both from 1.
        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }

        /// `line L, column C`.
        public var description: String { "line \(line), column \(column)" }
    }

    /// What went wrong.
    public let code: Code
    /// The problem, naming the tag or key path concerned.
    public let message: String
    /// Where the tag concerned starts (its `[[`).
    public let position: Position

    /// An error with `code` and `message` about the tag at `position`.
    public init(_ code: Code, _ message: String, at position: Position) {
        self.code = code
        self.message = message
        self.position = position
    }

    /// `template line L, column C: ` and the message.
    public var description: String { "template \(position): \(message)" }
}
