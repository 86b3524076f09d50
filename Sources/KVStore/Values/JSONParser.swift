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
        return TypedJSONError(line: line, column: column, problem: problem)
    }

    func error(_ problem: String, at offset: Int? = nil) -> TypedJSONError {
        Self.error(problem, at: offset ?? position, in: input)
    }

    // MARK: - Values and containers (recursive)

    /// The value at `position`, which is not whitespace.
    private mutating func parseValue() throws(TypedJSONError) -> Value {
        switch peek() {
        case UInt8(ascii: "{"): return try interpret(try parseObject())
        case UInt8(ascii: "["): return .array(try parseArray())
        default: return try parseScalar()
        }
    }

    private mutating func parseArray() throws(TypedJSONError) -> [Value] {
        var elements: [Value] = []
        guard try open(closingWith: UInt8(ascii: "]")) else { return elements }
        defer { depth -= 1 }
        repeat {
            elements.append(try parseValue())
        } while try continues(closingWith: UInt8(ascii: "]"))
        return elements
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

    private mutating func parseObject() throws(TypedJSONError) -> RawObject {
        var object = RawObject()
        guard try open(closingWith: UInt8(ascii: "}")) else { return object }
        defer { depth -= 1 }
        var first: Member?
        repeat {
            let member = try parseKey()
            if first == nil, member.key == "$dict", peek() == UInt8(ascii: "{") {
                let content = try parseObject()
                if try closes(UInt8(ascii: "}")) {
                    object.tag = member
                    object.dictContent = .object(content)
                    return object
                }
                // With more keys, "$dict" is a plain key and its object a value like any other.
                try add(try interpret(content), for: member, to: &object)
            } else {
                try add(try parseValue(), for: member, to: &object)
            }
            if first == nil { first = member }
        } while try continues(closingWith: UInt8(ascii: "}"))
        if object.members.count == 1, let first, first.key.utf8.first == UInt8(ascii: "$") {
            object.tag = first
        }
        return object
    }

    /// The value of an object: a dictionary, the tagged value it spells, or a `$dict`'s content.
    private func interpret(_ object: RawObject) throws(TypedJSONError) -> Value {
        guard case .object(let content) = object.dictContent else { return try interpretTag(object) }
        return .dictionary(try verbatim(content))
    }

    /// The members of an object read verbatim.
    private func verbatim(_ object: RawObject) throws(TypedJSONError) -> [String: Value] {
        guard case .object(let content) = object.dictContent else { return object.members }
        return ["$dict": try interpret(content)]
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
