/// A parsed, dot-separated key path: `address.city`, `items.@sum.amount`, `@count`.
///
/// Each component is a key, or a ``CollectionOperator`` written `@name`. A key is any non-empty text
/// without `.`; a component that starts with `@` is always an operator. Keys are kept in Unicode
/// Normalization Form C, the form records store them in (either spelling of `café` names one key).
///
/// ```swift
/// let path = try KeyValuePath("lines.@distinctUnionOfObjects.sku")
/// path.components   // [.key("lines"), .operator(.distinctUnionOfObjects), .key("sku")]
/// path.description  // "lines.@distinctUnionOfObjects.sku"
///
/// try KeyValuePath("a..b")      // KeyValueCodingError.invalidKeyPath
/// try KeyValuePath("items.@add") // KeyValueCodingError.unknownOperator, listing the valid ones
/// ```
///
/// There is deliberately no string-literal conformance: a literal cannot report a malformed path
/// except by trapping. Parse once with ``init(_:)`` and keep the path.
public struct KeyValuePath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a key path.
    public enum Component: Sendable, Hashable, CustomStringConvertible {
        /// Read this key of a dictionary or record (element-wise over an array).
        case key(String)
        /// Apply this operator to the collection on its left, with the rest of the path on its right.
        case `operator`(CollectionOperator)

        /// The component as written: `city`, `@sum`.
        public var description: String {
            switch self {
            case .key(let key): key
            case .operator(let op): op.description
            }
        }
    }

    /// The components, at least one.
    public let components: [Component]

    /// The most components a key path has: enough to reach the deepest value a record holds (it
    /// nests at most 511 levels), few enough that evaluating it, a call per component (about
    /// 1 KiB of stack each in a release build, 3 KiB in a debug one), fits the 8 MiB stack of a
    /// main or default Linux thread; a 512 KiB thread (Darwin's secondary threads) may be too
    /// small for the longest paths in a debug build. A path of 10,000 components that followed a
    /// reference each step (`friend.friend.…`) ended the process with a stack overflow.
    public static let maximumComponents = 512

    /// The most nested calls one evaluation makes: one per component, and one per array a key
    /// maps (`items.name` maps each element of `items`, and of arrays inside it) without using
    /// up a component. The deepest value of a record under the longest path takes 1,023; a
    /// path through references to arrays of references (`f.f.…`, each `f` 500 arrays deep)
    /// would take hundreds of thousands, and overflowed the stack.
    static let maximumDepth = maximumComponents + KeyValueCodingError.maximumRecordNesting + 1

    /// Parses a dot-separated key path.
    ///
    /// - Throws: ``KeyValueCodingError`` with code ``KeyValueCodingError/Code/invalidKeyPath`` for an
    ///   empty path, an empty component (`a..b`, a leading or trailing dot), a lone `@` or more
    ///   than ``maximumComponents`` components, and ``KeyValueCodingError/Code/unknownOperator``
    ///   for `@name` with an unknown name.
    public init(_ text: String) throws(KeyValueCodingError) {
        guard !text.isEmpty else { throw .invalidKeyPath(text, problem: "the key path is empty") }
        let parts = Self.keys(of: text)
        try Self.checkLength(parts.count, of: text)
        var components: [Component] = []
        for (index, part) in parts.enumerated() {
            components.append(try Self.component(part, at: index, of: parts.count, in: text))
        }
        self.components = components
    }

    /// Builds a key path from components, checking that it would parse back to the same components.
    ///
    /// ```swift
    /// let path = try KeyValuePath(components: [.key("items"), .operator(.count)])  // items.@count
    /// ```
    /// - Throws: ``KeyValueCodingError/Code/invalidKeyPath`` for no components or more than
    ///   ``maximumComponents``, or a key that is empty, contains `.` or starts with `@`.
    public init(components: [Component]) throws(KeyValueCodingError) {
        let text = components.map(\.description).joined(separator: ".")
        guard !components.isEmpty else { throw .invalidKeyPath(text, problem: "the key path is empty") }
        try Self.checkLength(components.count, of: text)
        for case .key(let key) in components {
            // By bytes, as the parser splits: `.` or `@` then a combining mark is one Character.
            if key.isEmpty || key.utf8.contains(UInt8(ascii: ".")) || key.utf8.first == UInt8(ascii: "@") {
                throw .invalidKeyPath(
                    text, problem: "the key '\(key)' is empty, contains '.' or starts with '@'"
                )
            }
        }
        self.components = components.map { component in
            guard case .key(let key) = component else { return component }
            return .key(UTF8Text.nfc(key))
        }
    }

    /// Refuses a path of more than ``maximumComponents`` components, quoting only its start.
    private static func checkLength(_ count: Int, of text: String) throws(KeyValueCodingError) {
        guard count > maximumComponents else { return }
        throw KeyValueCodingError(
            code: .invalidKeyPath,
            message: "invalid key path '\(quotedStart(of: text))': it has \(count) components; a key path has at most \(maximumComponents)",
            keyPath: text)
    }

    /// The first 60 characters of a long path's `text`, and `…` when that is not all: what an
    /// error about a path too long or too deep quotes.
    static func quotedStart(of text: String) -> String {
        text.count > 60 ? text.prefix(60) + "…" : text
    }

    /// The path as written: components joined by dots.
    public var description: String { Self.text(of: components[...]) }

    /// The first component's key, when the path starts with a key.
    public var firstKey: String? {
        if case .key(let key) = components.first { return key }
        return nil
    }

    /// Some components joined by dots: `Self.text(of: path.components.prefix(2))` is the path's first
    /// two components as written.
    package static func text(of components: ArraySlice<Component>) -> String {
        components.map(\.description).joined(separator: ".")
    }

    /// `text` split at every `.`, by Unicode scalar as record keys are checked: a `.` after a
    /// prepended mark such as U+0602 forms one Character with it, and still separates two keys.
    package static func keys(of text: String) -> [String] {
        text.unicodeScalars.split(separator: ".", omittingEmptySubsequences: false).map { String(Substring($0)) }
    }

    private static func component(
        _ part: String, at index: Int, of count: Int, in text: String
    ) throws(KeyValueCodingError) -> Component {
        if part.isEmpty {
            let position = index == 0 ? "a leading '.'"
                : index == count - 1 ? "a trailing '.'"
                : "an empty component at position \(index + 1)"
            throw .invalidKeyPath(text, problem: "\(position); keys are separated by single dots")
        }
        guard part.utf8.first == UInt8(ascii: "@") else { return .key(UTF8Text.nfc(part)) }
        let name = String(part.unicodeScalars.dropFirst())
        if name.isEmpty {
            throw .invalidKeyPath(
                text, problem: "'@' needs an operator name, one of \(CollectionOperator.list)"
            )
        }
        guard let op = CollectionOperator(rawValue: name) else { throw .unknownOperator(name, keyPath: text) }
        return .operator(op)
    }
}
