/// Parses the NSPredicate format language into a ``KeyPathPredicate``, by recursive descent.
///
/// ```
/// predicate  := or
/// or         := and (('OR' | '||') and)*
/// and        := not (('AND' | '&&') not)*
/// not        := ('NOT' | '!') not | '(' predicate ')' | TRUEPREDICATE | FALSEPREDICATE | comparison
/// comparison := [ANY | SOME | ALL | NONE] expression operator ['[c]' | '[d]' | '[cd]'] expression
/// ```
/// Keywords are case-insensitive. Nesting (parentheses, `NOT`, lists, subqueries) is capped at
/// ``KeyPathPredicate/maximumNesting`` so that no input runs the parser out of stack.
struct PredicateParser {
    var tokens: [PredicateToken]
    var position = 0
    var depth = 0

    static func parse(_ text: String) throws(KeyPathPredicateError) -> KeyPathPredicate {
        var lexer = PredicateLexer(text)
        var parser = PredicateParser(tokens: try lexer.tokens())
        let predicate = try parser.orPredicate()
        guard parser.current.kind == .end else {
            throw parser.expected("AND, OR or the end of the predicate")
        }
        return predicate
    }

    var current: PredicateToken { tokens[position] }
    var previous: PredicateToken? { position > 0 ? tokens[position - 1] : nil }

    mutating func advance() {
        if position < tokens.count - 1 { position += 1 }
    }

    /// The current token's keyword, uppercased, when it is a bare word.
    var keyword: String? {
        guard case .word(let word) = current.kind else { return nil }
        return Self.keyword(word)
    }

    /// `word` uppercased when it is ASCII; nil otherwise. Keywords are ASCII: Swift uppercases
    /// `ın` (dotless i) to `IN` and `ſome` (long s) to `SOME`, and those are keys.
    static func keyword(_ word: String) -> String? {
        word.utf8.allSatisfy { $0 < 0x80 } ? word.uppercased() : nil
    }

    mutating func take(keyword: String) -> Bool {
        guard self.keyword == keyword else { return false }
        advance()
        return true
    }

    mutating func take(symbol: String) -> Bool {
        guard current.kind == .symbol(symbol) else { return false }
        advance()
        return true
    }

    mutating func expect(symbol: String, what: String? = nil) throws(KeyPathPredicateError) {
        guard take(symbol: symbol) else { throw expected(what ?? "'\(symbol)'") }
    }

    /// `expected WHAT after 'PREVIOUS', found 'CURRENT'`, at the current token.
    func expected(_ what: String) -> KeyPathPredicateError {
        var message = "expected \(what)"
        if let previous { message += " after '\(previous.text)'" }
        if current.kind != .end { message += ", found '\(current.text)'" }
        return KeyPathPredicateError(.syntax, message, line: current.line, column: current.column)
    }

    func error(_ code: KeyPathPredicateError.Code, _ message: String, at token: PredicateToken) -> KeyPathPredicateError {
        KeyPathPredicateError(code, message, line: token.line, column: token.column)
    }

    /// Runs `body` `cost` nesting levels deeper, refusing to go past the cap.
    mutating func nested<T>(
        cost: Int = 1, _ body: (inout PredicateParser) throws(KeyPathPredicateError) -> T
    ) throws(KeyPathPredicateError) -> T {
        guard depth + cost <= KeyPathPredicate.maximumNesting else {
            throw error(.nestedTooDeeply, "the predicate nests deeper than \(KeyPathPredicate.maximumNesting) levels", at: current)
        }
        depth += cost
        defer { depth -= cost }
        return try body(&self)
    }

    // MARK: - Predicates

    mutating func orPredicate() throws(KeyPathPredicateError) -> KeyPathPredicate {
        var operands = [try andPredicate()]
        while take(keyword: "OR") || take(symbol: "||") { operands.append(try andPredicate()) }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    mutating func andPredicate() throws(KeyPathPredicateError) -> KeyPathPredicate {
        var operands = [try notPredicate()]
        while take(keyword: "AND") || take(symbol: "&&") { operands.append(try notPredicate()) }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    mutating func notPredicate() throws(KeyPathPredicateError) -> KeyPathPredicate {
        if take(keyword: "NOT") || take(symbol: "!") {
            return .not(try nested { (parser) throws(KeyPathPredicateError) in try parser.notPredicate() })
        }
        if take(symbol: "(") {
            let inner = try nested { (parser) throws(KeyPathPredicateError) in try parser.orPredicate() }
            try expect(symbol: ")", what: "')' or a continuation of the predicate")
            return inner
        }
        if take(keyword: "TRUEPREDICATE") { return .true }
        if take(keyword: "FALSEPREDICATE") { return .false }
        return .comparison(try comparison())
    }

    mutating func comparison() throws(KeyPathPredicateError) -> PredicateComparison {
        var quantifier: PredicateQuantifier?
        switch keyword {
        case "ANY", "SOME": quantifier = .anyElement
        case "ALL": quantifier = .everyElement
        case "NONE": quantifier = .noElement
        default: break
        }
        if quantifier != nil { advance() }
        let left = try expression(what: "a predicate")
        let operatorText = current.text
        let op = try comparisonOperator()
        let options = try stringOptions()
        let rightToken = current
        let right = try expression(what: "a value")
        if op == .between { try checkBounds(right, after: operatorText) }
        if op == .matches, case .constant(.string(let pattern)) = right {
            do {
                _ = try StringMatching.regularExpression(pattern, caseInsensitive: false)
            } catch {
                throw self.error(.invalidRegularExpression, error.message, at: rightToken)
            }
        }
        return PredicateComparison(left, op, right, options: options, quantifier: quantifier)
    }

    /// `BETWEEN` takes two bounds: a list of two, or a variable or key path holding them.
    private func checkBounds(_ right: KeyPathExpression, after text: String) throws(KeyPathPredicateError) {
        if case .list(let bounds) = right, bounds.count != 2 {
            throw error(.syntax, "expected two bounds {low, high} after '\(text)', found \(bounds.count)",
                        at: tokens[position - 1])
        }
    }

    mutating func comparisonOperator() throws(KeyPathPredicateError) -> PredicateOperator {
        if case .symbol(let symbol) = current.kind {
            let op: PredicateOperator? = switch symbol {
            case "==", "=": .equal
            case "!=", "<>": .notEqual
            case "<": .less
            case "<=", "=<": .lessOrEqual
            case ">": .greater
            case ">=", "=>": .greaterOrEqual
            default: nil
            }
            if let op {
                advance()
                return op
            }
        }
        if let keyword, let op = PredicateOperator(rawValue: keyword), op.rawValue.first!.isLetter {
            advance()
            return op
        }
        throw expected("a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES)")
    }

    /// `[c]`, `[d]`, `[cd]` after an operator.
    mutating func stringOptions() throws(KeyPathPredicateError) -> StringComparisonOptions {
        guard take(symbol: "[") else { return [] }
        var options: StringComparisonOptions = []
        guard case .word(let word) = current.kind, !word.isEmpty else { throw expected("c, d or cd") }
        for letter in word.lowercased().unicodeScalars {
            switch letter {
            case "c" where !options.contains(.caseInsensitive): options.insert(.caseInsensitive)
            case "d" where !options.contains(.diacriticInsensitive): options.insert(.diacriticInsensitive)
            default: throw error(.syntax, "expected c, d or cd in the options, found '\(word)'", at: current)
            }
        }
        advance()
        try expect(symbol: "]", what: "']' to close the options")
        return options
    }
}

extension KeyPathPredicate {
    /// How deeply a parsed predicate nests parentheses, `NOT`s, lists and subqueries (a subquery
    /// counts as ``subqueryNestingCost`` levels): far beyond any real query, and shallow enough
    /// that parsing, printing and evaluating it fit in a thread's stack of 512 KiB. Evaluating a
    /// predicate built in Swift checks the same cap first.
    public static let maximumNesting = 100

    /// The levels of ``maximumNesting`` one `SUBQUERY` takes: each costs about five times the
    /// stack of a parenthesis (measured: 99 nested subqueries overflowed 512 KiB, 100 parentheses
    /// fit in 256 KiB).
    public static let subqueryNestingCost = 5
}
