import Foundation

/// The string operators, on strings already folded by ``StringFolding``: prefixes, suffixes and
/// substrings by Unicode scalar (UTF-8 bytes), `LIKE` by character, `MATCHES` by regular expression.
enum StringMatching {
    /// The most steps of the regular expression engine one `MATCHES` takes on one value (about
    /// half a second): plenty for a pattern that runs in linear time over megabytes; `(a+)+b`
    /// needs 2^n steps for n `a`s. ICU itself gives up silently after some 40 million steps
    /// and reports no match, which would be a wrong `false`.
    static let maximumSteps = 20_000_000

    /// The steps between two progress reports of ICU's matcher.
    private static let stepsPerReport = 10_000

    static func beginsWith(_ string: String, _ prefix: String) -> Bool {
        match(.beginsWith, string, prefix, foldingASCIICase: false)
    }

    static func endsWith(_ string: String, _ suffix: String) -> Bool {
        match(.endsWith, string, suffix, foldingASCIICase: false)
    }

    static func contains(_ string: String, _ part: String) -> Bool {
        match(.contains, string, part, foldingASCIICase: false)
    }

    /// `BEGINSWITH`, `ENDSWITH` or `CONTAINS` with options `[c]`, `[d]` or `[cd]` (or none)
    /// between two ASCII strings, without folding them into new strings: ASCII has no marks to
    /// drop and is its own NFC, and folds its case by its letters alone. Nil when either string
    /// is not ASCII (folding it may give ASCII: `ﬁ` → `fi`, the Kelvin sign → `k`).
    static func asciiMatch(_ op: PredicateOperator, _ string: String, _ pattern: String, options: StringComparisonOptions) -> Bool? {
        guard UTF8Text.isASCII(string), UTF8Text.isASCII(pattern) else { return nil }
        return match(op, string, pattern, foldingASCIICase: options.contains(.caseInsensitive))
    }

    /// `op` (a prefix, a suffix or a substring) by UTF-8 bytes, ASCII letters alike in either
    /// case when `foldingASCIICase`.
    private static func match(_ op: PredicateOperator, _ string: String, _ pattern: String, foldingASCIICase: Bool) -> Bool {
        var (string, pattern) = (string, pattern)
        return string.withUTF8 { text in
            pattern.withUTF8 { part in
                guard part.count <= text.count else { return false }
                @inline(__always) func same(_ start: Int) -> Bool {
                    if foldingASCIICase {
                        for j in 0 ..< part.count where lower(text[start + j]) != lower(part[j]) { return false }
                    } else {
                        for j in 0 ..< part.count where text[start + j] != part[j] { return false }
                    }
                    return true
                }
                switch op {
                case .beginsWith: return same(0)
                case .endsWith: return same(text.count - part.count)
                default:
                    guard let first = part.first.map({ foldingASCIICase ? lower($0) : $0 }) else { return true }
                    for start in 0 ... text.count - part.count where (foldingASCIICase ? lower(text[start]) : text[start]) == first && same(start) {
                        return true
                    }
                    return false
                }
            }
        }
    }

    /// An ASCII upper-case letter's lower case; any other byte as it is.
    @inline(__always) private static func lower(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// Whether the whole `string` matches `pattern`, where `*` matches any characters, `?` one
    /// character, and `\` makes the next character literal. Greedy with one backtrack point:
    /// time proportional to the product of the lengths at worst, no recursion.
    static func like(_ string: String, _ pattern: String) -> Bool {
        enum Piece: Equatable { case any, one, literal(Character) }
        var pieces: [Piece] = []
        var escaping = false
        for character in pattern {
            if escaping {
                pieces.append(.literal(character))
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                pieces.append(character == "*" ? .any : character == "?" ? .one : .literal(character))
            }
        }
        if escaping { pieces.append(.literal("\\")) }
        let text = Array(string)
        var (t, p) = (0, 0)
        var backtrack: (piece: Int, text: Int)?
        while t < text.count {
            if p < pieces.count, pieces[p] == .one || pieces[p] == .literal(text[t]) {
                t += 1
                p += 1
            } else if p < pieces.count, pieces[p] == .any {
                backtrack = (p, t)
                p += 1
            } else if let point = backtrack {
                backtrack = (point.piece, point.text + 1)
                p = point.piece + 1
                t = point.text + 1
            } else {
                return false
            }
        }
        while p < pieces.count, pieces[p] == .any { p += 1 }
        return p == pieces.count
    }

    /// The compiled regular expression for `MATCHES`, matching whole strings: `\A(?:pattern)\z`.
    ///
    /// A valid pattern can end inside a `\Q` quote or an `(?x)` comment, which would swallow the
    /// closing `)\z`; the quote is then closed with `\E`, the comment with a newline.
    /// - Throws: ``KeyPathPredicateError/Code/invalidRegularExpression`` naming the pattern.
    static func regularExpression(_ pattern: String, caseInsensitive: Bool) throws(KeyPathPredicateError) -> WholeStringExpression {
        // The pattern alone must compile, so that '(?:' + ')' cannot rescue it.
        if (try? NSRegularExpression(pattern: pattern)) != nil {
            for ending in ["", "\\E", "\n"] {
                let whole = "\\A(?:\(pattern)\(ending))\\z"
                if let compiled = try? NSRegularExpression(pattern: whole, options: caseInsensitive ? [.caseInsensitive] : []) {
                    return WholeStringExpression(pattern: pattern, regex: compiled)
                }
            }
        }
        throw KeyPathPredicateError(.invalidRegularExpression, "'\(pattern.prefix(60))' is not a regular expression for MATCHES")
    }

    /// Whether the whole `string` matches, after at most ``maximumSteps`` steps.
    ///
    /// - Throws: ``KeyPathPredicateError/Code/regularExpressionTooCostly`` when the match needs
    ///   more steps, or ICU stops it with an internal error.
    static func matches(_ string: String, _ expression: WholeStringExpression) throws(KeyPathPredicateError) -> Bool {
        var (matched, reports, stopped) = (false, 0, false)
        let range = NSRange(string.startIndex..., in: string)
        expression.regex.enumerateMatches(in: string, options: [.reportProgress, .reportCompletion], range: range) { result, flags, stop in
            if result != nil {
                matched = true
                stop.pointee = true
            } else if flags.contains(.internalError) {
                stopped = true
            } else if flags.contains(.progress) {
                reports += 1
                if reports * stepsPerReport > maximumSteps {
                    stopped = true
                    stop.pointee = true
                }
            }
        }
        guard !stopped else {
            throw KeyPathPredicateError(.regularExpressionTooCostly, "'\(expression.pattern.prefix(60))' takes more than "
                + "\(maximumSteps) steps to match one value; simplify the MATCHES pattern")
        }
        return matched
    }
}

/// A `MATCHES` pattern compiled to match whole strings, and the pattern as written, for messages.
struct WholeStringExpression {
    let pattern: String
    let regex: NSRegularExpression
}
