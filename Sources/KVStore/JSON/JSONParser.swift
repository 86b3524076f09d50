/// A strict RFC 8259 parser producing ``Value``s with the typed-JSON mapping (see ``TypedJSON``).
///
/// The functions that recurse once per nesting level (values, arrays, objects) are kept small and
/// call out-of-line helpers for everything else, so that 512 levels of hostile nesting stay well
/// within a secondary thread's stack, even in debug builds.
struct JSONParser {
    let input: UnsafeBufferPointer<UInt8>
    var position = 0
    private var depth = 0

    private init(_ input: UnsafeBufferPointer<UInt8>) {
        self.input = input
    }

    /// Parses one JSON document; returns the value and the offset where it starts.
    static func parse(_ input: UnsafeBufferPointer<UInt8>) throws(TypedJSONError) -> (value: Value, start: Int) {
        var parser = JSONParser(input)
        if input.starts(with: [0xEF, 0xBB, 0xBF]) { parser.position = 3 }  // a UTF-8 byte order mark
        parser.skipWhitespace()
        let start = parser.position
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.position == input.count else {
            throw parser.error("unexpected \(parser.describeNext()) after the JSON value")
        }
        return (value, start)
    }

    /// An error at byte `offset` of `input`, with its line and column.
    static func error(_ problem: String, at offset: Int, in input: UnsafeBufferPointer<UInt8>) -> TypedJSONError {
        var line = 1
        var column = 1
        for byte in input[..<min(offset, input.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1  // count Unicode scalars, not UTF-8 continuation bytes
            }
        }
        return TypedJSONError(line: line, column: column, problem: oneLine(problem))
    }

    /// `problem` with its control characters and line separators escaped (`\u{0C}`): a problem
    /// quotes decoded text (a key, a tag, a `$date`), where a JSON escape such as `\f` or `\n` would
    /// otherwise break the message across lines.
    private static func oneLine(_ problem: String) -> String {
        guard problem.unicodeScalars.contains(where: needsEscape) else { return problem }
        return problem.unicodeScalars.map { needsEscape($0) ? $0.escaped(asASCII: true) : String($0) }.joined()
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    func error(_ problem: String, at offset: Int? = nil) -> TypedJSONError {
        Self.error(problem, at: offset ?? position, in: input)
    }

    // MARK: - Values and containers

    /// An array or object being parsed, on the parser's explicit stack.
    private enum Frame {
        case array([Value])
        case object(ObjectFrame)
    }

    private struct ObjectFrame {
        var object = RawObject()
        var first: Member?
        /// The member whose value is being parsed.
        var pending = Member(key: "", keyOffset: 0, valueOffset: 0)
        /// The pending value is the object of a first member `"$dict"`: it is delivered raw, since
        /// whether it is read verbatim depends on whether more members follow.
        var pendingIsDictContent = false
    }

    /// A value whose parsing is complete, or an object delivered raw to a `"$dict"` member.
    private enum Completed {
        case value(Value)
        case raw(RawObject)
    }

    /// The value at `position`, which is not whitespace.
    ///
    /// Nesting is handled with an explicit stack rather than recursion, so hostile input cannot
    /// overflow the thread's stack whatever the build configuration.
    private mutating func parseValue() throws(TypedJSONError) -> Value {
        var stack: [Frame] = []
        descending: while true {
            var completed: Completed
            switch peek() {
            case UInt8(ascii: "["):
                if try open(closingWith: UInt8(ascii: "]")) {
                    stack.append(.array([]))
                    continue descending
                }
                completed = .value(.array([]))
            case UInt8(ascii: "{"):
                if try open(closingWith: UInt8(ascii: "}")) {
                    var frame = ObjectFrame()
                    try beginMember(of: &frame)
                    stack.append(.object(frame))
                    continue descending
                }
                completed = try complete(RawObject(), under: stack)
            default:
                completed = .value(try parseScalar())
            }
            // Deliver the completed value to the enclosing containers, closing those that end.
            while let frame = stack.popLast() {
                switch frame {
                case .array(var elements):
                    if case .value(let value) = completed { elements.append(value) }
                    if try continues(closingWith: UInt8(ascii: "]")) {
                        stack.append(.array(elements))
                        continue descending
                    }
                    depth -= 1
                    completed = .value(.array(elements))
                case .object(var frame):
                    let member = frame.pending
                    if case .raw(let content) = completed {
                        if try closes(UInt8(ascii: "}")) {
                            // {"$dict":{...}}: a wrapper whose content is read verbatim.
                            depth -= 1
                            completed = try complete(RawObject(tag: member, dictContent: .object(content)), under: stack)
                            continue
                        }
                        // With more keys, "$dict" is a plain key and its object a value like any other.
                        try add(try interpret(content), for: member, to: &frame.object)
                    } else if case .value(let value) = completed {
                        try add(value, for: member, to: &frame.object)
                    }
                    if frame.first == nil { frame.first = member }
                    if try continues(closingWith: UInt8(ascii: "}")) {
                        try beginMember(of: &frame)
                        stack.append(.object(frame))
                        continue descending
                    }
                    depth -= 1
                    if frame.object.members.count == 1, let first = frame.first, first.key.utf8.first == UInt8(ascii: "$") {
                        frame.object.tag = first
                    }
                    completed = try complete(frame.object, under: stack)
                }
            }
            switch completed {
            case .value(let value): return value
            case .raw(let object): return try interpret(object)  // not reached: raw needs a parent
            }
        }
    }

    /// Parses a member's key and notes whether its value is `$dict` content.
    @inline(never)
    private mutating func beginMember(of frame: inout ObjectFrame) throws(TypedJSONError) {
        frame.pending = try parseKey()
        frame.pendingIsDictContent = frame.first == nil && frame.pending.key == "$dict"
            && peek() == UInt8(ascii: "{")
    }

    /// A closed object: raw when it is the content of a first member `"$dict"`, interpreted otherwise.
    @inline(never)
    private func complete(_ object: RawObject, under stack: [Frame]) throws(TypedJSONError) -> Completed {
        if case .object(let parent) = stack.last, parent.pendingIsDictContent { return .raw(object) }
        return .value(try interpret(object))
    }

    /// An object as parsed, before it is known whether it is read as a value (tags interpreted) or
    /// verbatim (the content of `{"$dict":…}`).
    struct RawObject {
        /// The members, except a deferred `$dict` object.
        var members: [String: Value] = [:]
        /// Set when the object has a single key that starts with `$`.
        var tag: Member?
        /// Set when the object's only member is `"$dict"` with an object value: that object is read
        /// verbatim if this one is a `$dict` wrapper, and as a value if this one is itself verbatim.
        var dictContent: DictContent?
    }

    indirect enum DictContent {
        case object(RawObject)
    }

    /// A member's key and where it and its value start.
    struct Member {
        var key: String
        var keyOffset: Int
        var valueOffset: Int
    }

    /// The value of an object: a dictionary, the tagged value it spells, or a `$dict`'s content.
    ///
    /// Along a chain of `$dict` contents, levels alternate between interpreted (even) and verbatim
    /// (odd): an interpreted wrapper is its verbatim content, a verbatim object holding `$dict` is
    /// `["$dict": interpreted content]`. Folded from the innermost object outwards, without recursion.
    @inline(never)
    private func interpret(_ object: RawObject) throws(TypedJSONError) -> Value {
        var innermost = object
        var levels = 0
        while case .object(let content) = innermost.dictContent {
            innermost = content
            levels += 1
        }
        var value = levels % 2 == 0 ? try interpretTag(innermost) : .dictionary(innermost.members)
        for level in stride(from: levels - 1, through: 0, by: -1) where level % 2 == 1 {
            value = .dictionary(["$dict": value])
        }
        return value
    }

    // MARK: - Punctuation (out of line)

    /// Consumes `{` or `[` and the whitespace after it, entering a container; returns false, having
    /// left the container, when it is empty and closed at once.
    @inline(never)
    private mutating func open(closingWith closer: UInt8) throws(TypedJSONError) -> Bool {
        guard depth < TypedJSON.maxDepth else {
            throw error("nesting deeper than \(TypedJSON.maxDepth) arrays and objects")
        }
        position += 1
        skipWhitespace()
        if peek() == closer {
            position += 1
            return false
        }
        depth += 1
        return true
    }

    /// After an element: true on `,` (and the whitespace after it), false on the closer.
    @inline(never)
    private mutating func continues(closingWith closer: UInt8) throws(TypedJSONError) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","):
            position += 1
            skipWhitespace()
            return true
        case closer:
            position += 1
            return false
        default:
            throw error(closer == UInt8(ascii: "]") ? "expected ',' or ']' in array" : "expected ',' or '}' in object")
        }
    }

    /// Skips whitespace and consumes `closer` if it comes next.
    @inline(never)
    private mutating func closes(_ closer: UInt8) throws(TypedJSONError) -> Bool {
        skipWhitespace()
        guard peek() == closer else { return false }
        position += 1
        return true
    }

    /// A member's key, the `:` and the whitespace around it.
    @inline(never)
    private mutating func parseKey() throws(TypedJSONError) -> Member {
        guard peek() == UInt8(ascii: "\"") else { throw error("expected a string key in object") }
        let keyOffset = position
        let key = try parseString()
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after object key") }
        position += 1
        skipWhitespace()
        return Member(key: key, keyOffset: keyOffset, valueOffset: position)
    }

    @inline(never)
    private func add(_ value: Value, for member: Member, to object: inout RawObject) throws(TypedJSONError) {
        if object.members.updateValue(value, forKey: member.key) != nil {
            throw error("duplicate key '\(member.key)' in object", at: member.keyOffset)
        }
    }

    // MARK: - Layout

    func peek() -> UInt8? {
        position < input.count ? input[position] : nil
    }

    mutating func skipWhitespace() {
        while let byte = peek(),
              byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t")
              || byte == UInt8(ascii: "\r") {
            position += 1
        }
    }

    /// `'x'` for printable ASCII, `end of input`, or the byte in hex.
    func describeNext() -> String {
        guard let byte = peek() else { return "end of input" }
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte \(ValueCodec.hex(byte))"
    }
}
