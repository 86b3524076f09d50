import Foundation

/// The expressions on either side of a comparison.
extension PredicateParser {
    /// Words that are keywords, never keys, unless escaped (`#in`, `` `in` ``).
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES",
        "ANY", "SOME", "ALL", "NONE", "TRUEPREDICATE", "FALSEPREDICATE", "NIL", "NULL", "TRUE", "FALSE",
        "YES", "NO", "SUBQUERY", "CAST", "SELF", "FIRST", "LAST", "SIZE",
    ]

    /// A key path, `$variable`, literal, `{list}`, `SUBQUERY(…)` or `CAST(…)`.
    mutating func expression(what: String) throws(KeyPathPredicateError) -> KeyPathExpression {
        let start = current
        switch start.kind {
        case .word(let word):
            if let keyword = Self.keyword(word), Self.reservedWords.contains(keyword) {
                return try keywordExpression(keyword, what: what)
            }
            advance()
            return .keyPath(try keyPath(startingWith: [.key(word)], at: start))
        case .escapedWord(let word):
            advance()
            return .keyPath(try keyPath(startingWith: [.key(word)], at: start))
        case .atWord(let name):
            let op = try collectionOperator(name)
            advance()
            return .keyPath(try keyPath(startingWith: [.operator(op)], at: start))
        case .variable(let name):
            advance()
            return .variable(name, keyPath: try optionalKeyPath())
        case .string(let string):
            return constant(.string(string))
        case .number, .symbol("-"):
            return .constant(try number())
        case .symbol("{"):
            return try nested { (parser) throws(KeyPathPredicateError) in try parser.list() }
        default:
            throw expected(what)
        }
    }

    /// `nil`, `TRUE`, `SUBQUERY(…)`, `CAST(…)`; another keyword is not an expression. Apart from
    /// ``expression(what:)``, whose stack frame each level of nested lists pays (in a debug
    /// build a switch over strings makes that frame kilobytes larger).
    private mutating func keywordExpression(_ keyword: String, what: String) throws(KeyPathPredicateError) -> KeyPathExpression {
        switch keyword {
        case "NIL", "NULL": return constant(.null)
        case "TRUE", "YES": return constant(.bool(true))
        case "FALSE", "NO": return constant(.bool(false))
        case "SUBQUERY":
            return try nested(cost: KeyPathPredicate.subqueryNestingCost) { (parser) throws(KeyPathPredicateError) in
                try parser.subquery()
            }
        case "CAST": return try cast()
        default: throw expected(what)
        }
    }

    private mutating func constant(_ value: Value) -> KeyPathExpression {
        advance()
        return .constant(value)
    }

    /// `{a, b, …}`, possibly empty.
    private mutating func list() throws(KeyPathPredicateError) -> KeyPathExpression {
        advance()
        var elements: [KeyPathExpression] = []
        if take(symbol: "}") { return .list(elements) }
        repeat {
            elements.append(try expression(what: "a value"))
        } while take(symbol: ",")
        try expect(symbol: "}", what: "',' or '}' in the list")
        return .list(elements)
    }

    /// `SUBQUERY(collection, $x, predicate)`, then an optional key path.
    private mutating func subquery() throws(KeyPathPredicateError) -> KeyPathExpression {
        advance()
        try expect(symbol: "(")
        let collection = try expression(what: "a collection")
        try expect(symbol: ",")
        guard case .variable(let variable) = current.kind else { throw expected("a $variable") }
        advance()
        try expect(symbol: ",")
        let predicate = try orPredicate()
        try expect(symbol: ")", what: "')' to close SUBQUERY")
        let subquery = PredicateSubquery(collection: collection, variable: variable, predicate: predicate)
        return .subquery(subquery, keyPath: try optionalKeyPath())
    }

    /// `CAST('2024-05-01T12:00:00Z', 'NSDate')`, `CAST(7.5, 'NSDate')`, `CAST('{"$ref":"a/b"}', 'JSON')`.
    private mutating func cast() throws(KeyPathPredicateError) -> KeyPathExpression {
        advance()
        try expect(symbol: "(")
        let argument = current
        let input: Value
        if case .string(let string) = argument.kind {
            advance()
            input = .string(string)
        } else if case .number = argument.kind {
            input = try number()
        } else if argument.kind == .symbol("-") {
            input = try number()
        } else {
            throw expected("a string or a number to cast")
        }
        try expect(symbol: ",")
        guard case .string(let type) = current.kind else { throw expected("'NSDate' or 'JSON'") }
        let typeToken = current
        advance()
        try expect(symbol: ")", what: "')' to close CAST")
        return .constant(try Self.cast(input, to: type, at: argument, typeToken: typeToken))
    }

    private static func cast(
        _ input: Value, to type: String, at argument: PredicateToken, typeToken: PredicateToken
    ) throws(KeyPathPredicateError) -> Value {
        func invalid(_ message: String) -> KeyPathPredicateError {
            KeyPathPredicateError(.invalidLiteral, message, line: argument.line, column: argument.column)
        }
        switch (type, input) {
        case ("NSDate", .string(let text)):
            if let date = TypedJSONDate.date(from: text) { return .date(date) }
            if let seconds = Double(text), !text.isEmpty { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
            throw invalid("'\(text.prefix(40))' is not a date: give ISO 8601 (2024-05-01T12:00:00Z) or seconds since 2001")
        case ("NSDate", let number):
            return .date(Date(timeIntervalSinceReferenceDate: number.doubleValue ?? 0))
        case ("JSON", .string(let text)):
            do {
                return try TypedJSON.value(from: text)
            } catch {
                throw invalid("the JSON to cast is not typed JSON: \(error)")
            }
        case ("JSON", _):
            throw invalid("CAST to 'JSON' takes a string")
        default:
            throw KeyPathPredicateError(.syntax, "expected 'NSDate' or 'JSON' as the type to cast to, found '\(type.prefix(40))'",
                                 line: typeToken.line, column: typeToken.column)
        }
    }

    /// An int or a double, with an optional leading `-`; ints also in hexadecimal (`0x1F`),
    /// octal (`0o17`) and binary (`0b101`).
    private mutating func number() throws(KeyPathPredicateError) -> Value {
        let start = current
        let negative = take(symbol: "-")
        guard case .number(let digits) = current.kind else { throw expected("a number") }
        advance()
        let text = (negative ? "-" : "") + digits
        if let (radix, name) = Self.radixes[String(digits.dropFirst().prefix(1)).lowercased()], digits.first == "0" {
            let body = digits.dropFirst(2)
            guard !body.isEmpty, body.allSatisfy({ $0.isASCII && ($0.hexDigitValue ?? radix) < radix }) else {
                throw error(.invalidLiteral, "'\(digits.prefix(40))' is not \(name) integer", at: start)
            }
            guard let int = Int64((negative ? "-" : "") + body, radix: radix) else {
                throw error(.invalidLiteral, "the integer \(text.prefix(40)) is out of the range of Int64", at: start)
            }
            return .int(int)
        }
        if digits.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
            guard let double = Double(text), double.isFinite else {
                throw error(.invalidLiteral, "the number \(text.prefix(40)) is out of the range of a double", at: start)
            }
            return .double(double)
        }
        guard let int = Int64(text) else {
            throw error(.invalidLiteral, "the integer \(text.prefix(40)) is out of the range of Int64", at: start)
        }
        return .int(int)
    }

    /// The radix and its name after `0` in an integer.
    private static let radixes = ["x": (16, "a hexadecimal"), "o": (8, "an octal"), "b": (2, "a binary")]

    /// The operator `@name` names, at the current token.
    private func collectionOperator(_ name: String) throws(KeyPathPredicateError) -> CollectionOperator {
        guard let op = CollectionOperator(rawValue: name) else {
            throw error(.invalidKeyPath, "unknown collection operator '@\(name)'; expected one of \(CollectionOperator.list)",
                        at: current)
        }
        return op
    }

    /// `.key.@op.key` after a variable or a subquery; nil when no `.` follows.
    private mutating func optionalKeyPath() throws(KeyPathPredicateError) -> KeyValuePath? {
        guard current.kind == .symbol(".") else { return nil }
        return try keyPath(startingWith: [], at: current)
    }

    /// The rest of a key path: `.key` and `.@operator` components after `components`.
    private mutating func keyPath(
        startingWith components: [KeyValuePath.Component], at start: PredicateToken
    ) throws(KeyPathPredicateError) -> KeyValuePath {
        var components = components
        while take(symbol: ".") {
            switch current.kind {
            case .word(let key), .escapedWord(let key):
                components.append(.key(key))
            case .atWord(let name):
                components.append(.operator(try collectionOperator(name)))
            default:
                throw expected("a key or a collection operator")
            }
            advance()
        }
        do {
            return try KeyValuePath(components: components)
        } catch {
            throw self.error(.invalidKeyPath, error.message, at: start)
        }
    }
}
