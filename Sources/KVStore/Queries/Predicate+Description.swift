/// Printing predicates as text that parses back to the same value.
extension KeyPathPredicate {
    /// The predicate in the format language: `age >= 18 AND NOT name BEGINSWITH[c] "a"`.
    ///
    /// `KeyPathPredicate(p.description) == p` for every predicate whose ``and(_:)`` and ``or(_:)`` have two
    /// operands or more (the parser never makes fewer; with one, the operand is printed alone, with
    /// none `TRUEPREDICATE` or `FALSEPREDICATE`), whose NaNs are plain `.nan` (a sign or payload is
    /// not printed), and that the parser accepts (a `MATCHES` pattern that is a regular
    /// expression, two bounds for `BETWEEN`, nesting within ``maximumNesting``). Keys and `$variable`
    /// names that are not plain words are written between backquotes.
    /// It is written without recursion, so a predicate built in Swift however deep prints on any
    /// thread's stack.
    public var description: String {
        PredicateWriter.text(of: .predicate(self, operand: false))
    }
}

extension PredicateComparison: CustomStringConvertible {
    /// `ANY tags ==[c] "swift"`.
    public var description: String {
        PredicateWriter.text(of: .comparison(self))
    }
}

extension KeyPathExpression: CustomStringConvertible {
    /// The expression as written: `customer.city`, `$l.qty`, `"Oslo"`, `{1, 2}`.
    public var description: String {
        PredicateWriter.text(of: .expression(self))
    }
}

/// How values and key paths are written in the format language.
enum PredicateLiteral {
    static func text(of value: Value) -> String {
        switch value {
        case .null: return "nil"
        case .bool(let bool): return bool ? "TRUE" : "FALSE"
        case .int(let int): return "\(int)"
        case .double(let double) where double.isFinite: return "\(double)"
        case .string(let string): return quoted(string)
        case .date(let date):
            switch TypedJSONDate.form(of: date) {
            case .text(let text): return "CAST(\(quoted(text)), \"NSDate\")"
            case .seconds(let seconds): return "CAST(\(seconds), \"NSDate\")"
            }
        default:
            return "CAST(\(quoted(TypedJSON.string(from: value))), \"JSON\")"
        }
    }

    /// Components joined by dots; a key that is a keyword gets `#`, one that is not a plain word
    /// is written between backquotes.
    static func text(of path: KeyValuePath) -> String {
        path.components.map { component in
            switch component {
            case .operator(let op): return op.description
            case .key(let key):
                let isWord = key.unicodeScalars.allSatisfy(PredicateLexer.isWordScalar)
                    && !(key.unicodeScalars.first.map { ("0" ... "9").contains($0) } ?? true)
                if !isWord { return "`" + escaped(key, quote: "`") + "`" }
                return PredicateParser.keyword(key).map(PredicateParser.reservedWords.contains) == true ? "#" + key : key
            }
        }.joined(separator: ".")
    }

    /// `$name`, or `` $`name` `` when the name is empty or not a word.
    static func text(ofVariable name: String) -> String {
        guard name.isEmpty || !name.unicodeScalars.allSatisfy(PredicateLexer.isWordScalar) else { return "$" + name }
        return "$`" + escaped(name, quote: "`") + "`"
    }

    static func quoted(_ string: String) -> String {
        "\"" + escaped(string, quote: "\"") + "\""
    }

    private static func escaped(_ string: String, quote: Unicode.Scalar) -> String {
        var view = String.UnicodeScalarView()
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\\", quote:
                view.append("\\")
                view.append(scalar)
            case "\n": view.append(contentsOf: "\\n".unicodeScalars)
            case "\r": view.append(contentsOf: "\\r".unicodeScalars)
            case "\t": view.append(contentsOf: "\\t".unicodeScalars)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                view.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            default:
                view.append(scalar)
            }
        }
        return String(view)
    }
}
