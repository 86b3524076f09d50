/// One token of a predicate's text, with where it starts.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        /// A bare word: a key, or a keyword (the parser decides, without case).
        case word(String)
        /// `#word` or `` `any text` ``: a key, never a keyword.
        case escapedWord(String)
        /// `@name`, a collection operator in a key path.
        case atWord(String)
        /// `$name`.
        case variable(String)
        /// A quoted string, escapes resolved.
        case string(String)
        /// Digits, with `.` or an exponent for a double, or `0x…`, `0o…`, `0b…`; the parser
        /// converts (and signs) it.
        case number(String)
        /// An operator or punctuation: `==`, `(`, `,`, …
        case symbol(String)
        case end
    }

    let kind: Kind
    let line: Int
    let column: Int
    /// The token as written, for messages.
    let text: String
}

/// Splits a predicate's text into tokens.
///
/// Words are letters, digits and `_`, plus non-ASCII scalars other than spaces, quotation marks,
/// brackets and math symbols (keys in other scripts need no escape). Strings are `'…'` or `"…"`
/// with the escapes `\\ \' \" \n \r \t`, `\uXXXX` (a surrogate pair in two of them is one
/// character), `\xXX` and C's octal `\0` to `\377`.
struct PredicateLexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1
    private var column = 1

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// Symbols, longest first so `<=` wins over `<`.
    private static let symbols = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||",
                                  "=", "<", ">", "!", "(", ")", "{", "}", "[", "]", ",", ".", "-"]

    /// Every token, ending with `.end`.
    mutating func tokens() throws(KeyPathPredicateError) -> [PredicateToken] {
        var tokens: [PredicateToken] = []
        while true {
            let token = try next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private mutating func next() throws(KeyPathPredicateError) -> PredicateToken {
        skipSpace()
        let (startLine, startColumn, start) = (line, column, index)
        func token(_ kind: PredicateToken.Kind) -> PredicateToken {
            PredicateToken(kind: kind, line: startLine, column: startColumn, text: text(from: start))
        }
        guard let first = peek() else { return PredicateToken(kind: .end, line: line, column: column, text: "") }
        switch first {
        case "'", "\"":
            return token(.string(try quoted()))
        case "`":
            return token(.escapedWord(try backquoted()))
        case "$" where peek(1) == "`":
            advance()
            return token(.variable(try backquoted(what: "variable")))
        case "#", "@", "$":
            advance()
            let name = word()
            if name.isEmpty { throw error(.syntax, "expected a name after '\(first)'", startLine, startColumn) }
            return token(first == "#" ? .escapedWord(name) : first == "@" ? .atWord(name) : .variable(name))
        case "0" ... "9":
            return token(.number(number()))
        default:
            if Self.isWordScalar(first) { return token(.word(word())) }
            for symbol in Self.symbols where matches(symbol) {
                for _ in symbol.unicodeScalars { advance() }
                return token(.symbol(symbol))
            }
            let hint = first.properties.isQuotationMark ? "; quote strings with ' or \"" : ""
            throw error(.syntax, "unexpected character '\(first.escaped(asASCII: false))'\(hint)", startLine, startColumn)
        }
    }

    /// Letters, digits and `_`, and any non-ASCII scalar but spaces, controls, quotation marks,
    /// brackets and math symbols: `“Ada”` and `≥` are mistakes to report, not parts of a key.
    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a" ... "z", "A" ... "Z", "0" ... "9", "_": return true
        case _ where scalar.isASCII || scalar.properties.isWhitespace || scalar.properties.isQuotationMark: return false
        default:
            switch scalar.properties.generalCategory {
            case .control, .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation, .mathSymbol: return false
            default: return true
            }
        }
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private mutating func advance() {
        if scalars[index] == "\n" {
            line += 1
            column = 1
        } else {
            column += 1
        }
        index += 1
    }

    private func matches(_ symbol: String) -> Bool {
        for (offset, scalar) in symbol.unicodeScalars.enumerated() where peek(offset) != scalar { return false }
        return true
    }

    /// The token's text for messages: its first 40 scalars (``KeyPathPredicateError`` escapes
    /// control characters).
    private func text(from start: Int) -> String {
        var text = String(String.UnicodeScalarView(scalars[start ..< index].prefix(40)))
        if index - start > 40 { text += "…" }
        return text
    }

    private mutating func skipSpace() {
        while let scalar = peek(), scalar.properties.isWhitespace { advance() }
    }

    private mutating func word() -> String {
        var view = String.UnicodeScalarView()
        while let scalar = peek(), Self.isWordScalar(scalar) {
            view.append(scalar)
            advance()
        }
        return String(view)
    }

    /// Digits, an optional fraction, an optional exponent; or `0x`, `0o`, `0b` and the word after
    /// it (the parser checks its digits).
    private mutating func number() -> String {
        var view = String.UnicodeScalarView()
        if peek() == "0", let prefix = peek(1), "xXoObB".unicodeScalars.contains(prefix) {
            advance()
            advance()
            return "0" + String(prefix) + word()
        }
        func digits() {
            while let scalar = peek(), ("0" ... "9").contains(scalar) {
                view.append(scalar)
                advance()
            }
        }
        digits()
        if peek() == ".", let after = peek(1), ("0" ... "9").contains(after) {
            view.append(".")
            advance()
            digits()
        }
        if let e = peek(), e == "e" || e == "E" {
            let signed = peek(1) == "+" || peek(1) == "-"
            if let digit = peek(signed ? 2 : 1), ("0" ... "9").contains(digit) {
                for _ in 0 ..< (signed ? 2 : 1) {
                    view.append(peek()!)
                    advance()
                }
                digits()
            }
        }
        return String(view)
    }

    private mutating func quoted() throws(KeyPathPredicateError) -> String {
        let (startLine, startColumn) = (line, column)
        let quote = peek()!
        advance()
        var view = String.UnicodeScalarView()
        while let scalar = peek() {
            advance()
            if scalar == quote { return String(view) }
            guard scalar == "\\" else {
                view.append(scalar)
                continue
            }
            view.append(try escape())
        }
        throw error(.syntax, "expected \(quote) to close the string that starts", startLine, startColumn)
    }

    private mutating func escape() throws(KeyPathPredicateError) -> Unicode.Scalar {
        let (escapeLine, escapeColumn) = (line, column - 1)
        guard let scalar = peek() else { throw error(.invalidLiteral, "expected an escape after '\\'", line, column) }
        advance()
        switch scalar {
        case "n": return "\n"
        case "r": return "\r"
        case "t": return "\t"
        case "\\", "'", "\"", "`": return scalar
        case "0" ... "7":
            var (value, text) = (scalar.value - 0x30, String(scalar))
            while text.count < 3, let digit = peek(), ("0" ... "7").contains(digit) {
                (value, text) = (value * 8 + digit.value - 0x30, text + String(digit))
                advance()
            }
            guard value <= 0o377 else {
                throw error(.invalidLiteral, "the octal escape '\\\(text)' is above \\377", escapeLine, escapeColumn)
            }
            return Unicode.Scalar(UInt8(value))
        case "x":
            guard let value = hexDigits(2) else {
                throw error(.invalidLiteral, "expected two hex digits after '\\x'", escapeLine, escapeColumn)
            }
            return Unicode.Scalar(UInt8(value))
        case "u":
            guard let value = hexDigits(4) else {
                throw error(.invalidLiteral, "expected four hex digits after '\\u'", escapeLine, escapeColumn)
            }
            if let result = Unicode.Scalar(value) { return result }
            // A high surrogate and a low one in the next \u make one character, as in JSON.
            if (0xD800 ..< 0xDC00).contains(value), peek() == "\\", peek(1) == "u" {
                let mark = (index, line, column)
                advance()
                advance()
                if let low = hexDigits(4), (0xDC00 ..< 0xE000).contains(low),
                   let result = Unicode.Scalar(0x10000 + (value - 0xD800) << 10 + (low - 0xDC00)) {
                    return result
                }
                (index, line, column) = mark
            }
            throw error(.invalidLiteral, "'\\u' names a surrogate, not a character", escapeLine, escapeColumn)
        default:
            throw error(.invalidLiteral, "unknown escape '\\\(scalar.escaped(asASCII: false))'", escapeLine, escapeColumn)
        }
    }

    /// The value of the next `count` hex digits, consumed; nil when there are fewer.
    private mutating func hexDigits(_ count: Int) -> UInt32? {
        var value: UInt32 = 0
        for _ in 0 ..< count {
            guard let digit = peek(), digit.isASCII, let hex = UInt32(String(digit), radix: 16) else { return nil }
            value = value * 16 + hex
            advance()
        }
        return value
    }

    /// `` `text` `` (a key) or `` $`text` `` (a variable), with `` \` `` and `\\` escaped.
    /// A key, or (after `$`) a variable's name, which may be empty.
    private mutating func backquoted(what: String = "key") throws(KeyPathPredicateError) -> String {
        let (startLine, startColumn) = (line, column)
        advance()
        var view = String.UnicodeScalarView()
        while let scalar = peek() {
            advance()
            if scalar == "`" {
                if view.isEmpty && what == "key" { throw error(.syntax, "expected a key between '`'s", startLine, startColumn) }
                return String(view)
            }
            view.append(scalar == "\\" ? try escape() : scalar)
        }
        throw error(.syntax, "expected ` to close the \(what) that starts", startLine, startColumn)
    }

    private func error(_ code: KeyPathPredicateError.Code, _ message: String, _ line: Int, _ column: Int) -> KeyPathPredicateError {
        KeyPathPredicateError(code, message, line: line, column: column)
    }
}
