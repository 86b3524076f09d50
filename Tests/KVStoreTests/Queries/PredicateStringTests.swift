import Foundation
import Testing
@testable import KVStore

@Suite("KeyPathPredicate strings")
struct PredicateStringTests {
    /// `"left" op "right"`, parsed and evaluated on a record.
    private func holds(_ left: String, _ op: String, _ right: String) throws -> Bool {
        let text = "\(PredicateLiteral.quoted(left)) \(op) \(PredicateLiteral.quoted(right))"
        return try store.holds(text)
    }

    let store: PredicateStore
    init() throws { store = try PredicateStore() }

    /// `[c]` and `[d]` beyond ASCII, with the choices for ß and Turkish ı.
    static let folding = [
        ("ÉCOLE", "==[cd]", "ecole", true), ("ÉCOLE", "==[c]", "école", true), ("ÉCOLE", "==[d]", "ECOLE", true),
        ("ÉCOLE", "==[c]", "ecole", false), ("ÉCOLE", "==[d]", "ecole", false), ("ÉCOLE", "==", "École", false),
        ("Straße", "==[c]", "STRASSE", true), ("STRASSE", "==[c]", "straße", true), ("ẞ", "==[c]", "ss", true),
        ("Straße", "==", "Strasse", false), ("ΣΊΣΥΦΟΣ", "==[cd]", "σισυφος", true), ("ς", "==[c]", "Σ", true),
        ("ﬁle", "==[c]", "FILE", true), ("I", "==[c]", "ı", false), ("ı", "==[c]", "ı", true), ("i", "==[c]", "I", true),
        ("İ", "==[cd]", "i", true), ("Åström", "==[d]", "Astrom", true), ("Øre", "==[d]", "Ore", false),
        ("cafe\u{301}", "==", "café", true), ("café", "BEGINSWITH", "cafe\u{301}", true),
        ("Ångström", "CONTAINS[cd]", "GSTR", true), ("Ångström", "CONTAINS", "GSTR", false),
        ("Ångström", "BEGINSWITH[d]", "Ang", true), ("Ångström", "ENDSWITH[c]", "STRÖM", true),
        ("Ångström", "ENDSWITH", "strom", false), ("a", "<", "b", true), ("B", "<", "a", true), ("B", "<[c]", "a", false),
        ("é", ">", "z", true), ("x", "CONTAINS", "", true), ("", "BEGINSWITH", "a", false),
    ]

    /// LIKE: `*` and `?` over whole strings, `\\` escapes, with options.
    static let like = [
        ("hello", "LIKE", "h*o", true), ("hello", "LIKE", "h?llo", true), ("hello", "LIKE", "h?lo", false),
        ("hello", "LIKE", "*", true), ("", "LIKE", "*", true), ("", "LIKE", "?", false), ("hello", "LIKE", "*l*l*", true),
        ("hello", "LIKE", "hell", false), ("a*b", "LIKE", "a\\*b", true), ("axb", "LIKE", "a\\*b", false), ("a\\", "LIKE", "a\\", true),
        ("HÉLLO", "LIKE[cd]", "hel*", true), ("é", "LIKE", "?", true), ("aaaaaaaaaaaaaaaaaaaaaaaab", "LIKE", "*a*a*a*a*a*c", false),
    ]

    /// MATCHES: the whole string, `[c]` and `[d]`.
    static let matches = [
        ("abc", "MATCHES", "a.c", true), ("abcd", "MATCHES", "a.c", false), ("xabc", "MATCHES", "abc", false),
        ("ab", "MATCHES", "a|ab", true), ("ABC", "MATCHES", "a.c", false), ("ABC", "MATCHES[c]", "a.c", true),
        ("Été", "MATCHES[d]", "Ete", true), ("Été", "MATCHES[cd]", "ete", true), ("a\nb", "MATCHES", "a.b", false),
        // [c] leaves the string to the pattern: `.` still matches one `ß`, and `ß` matches `SS`.
        ("Straße", "MATCHES[c]", "stra.e", true), ("STRASSE", "MATCHES[c]", "straße", true), ("Straße", "MATCHES[c]", "STRASSE", true),
        // Valid patterns that end inside a \Q quote or an (?x) comment.
        ("abc", "MATCHES", "\\Qabc", true), ("a.c", "MATCHES", "\\Qa.c", true), ("abc", "MATCHES", "\\Qa.c", false),
        ("ab", "MATCHES", "(?x) a b # letters", true), ("a b", "MATCHES", "(?x) a b # letters", false),
    ]

    @Test("string operators with [c] and [d]: folding, LIKE, MATCHES", arguments: folding + like + matches)
    func stringOperator(left: String, op: String, right: String, expected: Bool) throws {
        #expect(try holds(left, op, right) == expected)
    }

    @Test("string operators on the store's values; non-strings make them false")
    func onRecords() throws {
        #expect(try store.holds("title ==[cd] 'ecole' AND name BEGINSWITH 'A' AND name LIKE 'A?a'"))
        #expect(try store.holds("name MATCHES $pattern", nil, ["pattern": "A[a-z]+"]))
        #expect(try !store.holds("born CONTAINS '1'") && !store.holds("name CONTAINS 1"))
    }
}
