import Foundation
import Testing
@testable import KVStore

@Suite("KeyPathPredicate parser")
struct PredicateParserTests {
    @Test("every comparison operator and its spellings")
    func comparisonOperators() throws {
        let spellings: [(String, PredicateOperator)] = [
            ("==", .equal), ("=", .equal), ("!=", .notEqual), ("<>", .notEqual), ("<", .less), ("<=", .lessOrEqual),
            ("=<", .lessOrEqual), (">", .greater), (">=", .greaterOrEqual), ("=>", .greaterOrEqual),
            ("BEGINSWITH", .beginsWith), ("endswith", .endsWith), ("Contains", .contains), ("LIKE", .like),
            ("matches", .matches), ("in", .in),
        ]
        for (text, op) in spellings {
            #expect(try KeyPathPredicate("a \(text) 'x'") == compare(path("a"), op, .constant("x")), "\(text)")
        }
        #expect(try KeyPathPredicate("age BETWEEN {1, 2}") == compare(path("age"), .between, .list([.constant(1), .constant(2)])))
    }

    @Test("literals: nil, booleans, numbers, strings with escapes, dates and JSON casts")
    func literals() throws {
        let cases: [(String, Value)] = [
            ("nil", .null), ("NULL", .null), ("TRUE", true), ("yes", true), ("FALSE", false), ("No", false),
            ("42", 42), ("-7", -7), ("-9223372036854775808", .int(.min)), ("2.5", 2.5), ("-0.0", .double(-0.0)),
            ("1e3", 1000.0), ("2.5E-3", 0.0025), (#""say \"hi\"\n""#, "say \"hi\"\n"),
            (#"'tab\there \u00E9 \\ \''"#, "tab\there é \\ '"),
            ("CAST('2001-01-01T00:01:00Z', 'NSDate')", .date(Date(timeIntervalSinceReferenceDate: 60))),
            ("CAST(-12.5, 'NSDate')", .date(Date(timeIntervalSinceReferenceDate: -12.5))),
            ("CAST('86400', 'NSDate')", .date(Date(timeIntervalSinceReferenceDate: 86400))),
            (#"CAST('{"$ref":"person/ada"}', 'JSON')"#, .reference(try RecordRef("person/ada"))),
            // Integers in hexadecimal, octal and binary, as the Predicate Programming Guide lists them.
            ("0x1F", 31), ("0X1f", 31), ("-0x10", -16), ("0o17", 15), ("0b101", 5), ("0x7FFFFFFFFFFFFFFF", .int(.max)),
            ("-0x8000000000000000", .int(.min)), ("-0b1", -1), ("0", 0), ("007", 7),
            // A surrogate pair in \u escapes is one character; C's octal and \x escapes.
            (#"'\uD83D\uDE00'"#, "😀"), (#"'\012\101\0'"#, "\nA\0"), (#"'\x41\x7e'"#, "A~"), (#"'\08'"#, "\08"),
        ]
        for (text, value) in cases {
            #expect(try KeyPathPredicate("x == \(text)") == compare(path("x"), .equal, .constant(value)), "\(text)")
        }
    }

    @Test("AND binds tighter than OR, NOT tighter than AND; chains stay flat")
    func precedence() throws {
        let a = compare(path("a"), .equal, .constant(1))
        let b = compare(path("b"), .equal, .constant(2))
        let c = compare(path("c"), .equal, .constant(3))
        #expect(try KeyPathPredicate("a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try KeyPathPredicate("a == 1 && b == 2 && c == 3") == .and([a, b, c]))
        #expect(try KeyPathPredicate("(a == 1 || b == 2) and not c == 3") == .and([.or([a, b]), .not(c)]))
        #expect(try KeyPathPredicate("!(a == 1) AND NOT NOT b == 2") == .and([.not(a), .not(.not(b))]))
        #expect(try KeyPathPredicate("TRUEPREDICATE or falsepredicate") == .or([.true, .false]))
    }

    @Test("quantifiers, options, variables, lists and subqueries")
    func toManyAndVariables() throws {
        #expect(try KeyPathPredicate("ANY tags ==[c] 'x'")
            == compare(path("tags"), .equal, .constant("x"), options: .caseInsensitive, quantifier: .anyElement))
        #expect(try KeyPathPredicate("some tags ENDSWITH[dc] 'x'")
            == compare(path("tags"), .endsWith, .constant("x"), options: [.caseInsensitive, .diacriticInsensitive], quantifier: .anyElement))
        #expect(try KeyPathPredicate("ALL lines.qty > 0") == compare(path("lines.qty"), .greater, .constant(0), quantifier: .everyElement))
        #expect(try KeyPathPredicate("NONE tags LIKE[d] 'a*'")
            == compare(path("tags"), .like, .constant("a*"), options: .diacriticInsensitive, quantifier: .noElement))
        #expect(try KeyPathPredicate("name IN $names") == compare(path("name"), .in, .variable("names")))
        #expect(try KeyPathPredicate("tags.@count > 2") == compare(path("tags.@count"), .greater, .constant(2)))
        #expect(try KeyPathPredicate("lines.@sum.amount >= 100") == compare(path("lines.@sum.amount"), .greaterOrEqual, .constant(100)))
        let qty = try KeyValuePath("qty")
        let subquery = PredicateSubquery(
            collection: path("lines"), variable: "l", predicate: compare(.variable("l", keyPath: qty), .greater, .constant(1))
        )
        #expect(try KeyPathPredicate("SUBQUERY(lines, $l, $l.qty > 1).@count > 0")
            == compare(.subquery(subquery, keyPath: try KeyValuePath("@count")), .greater, .constant(0)))
    }

    @Test("keywords escaped with # or backquotes are keys; keys in any script need no escape")
    func escapedKeys() throws {
        #expect(try KeyPathPredicate("#in == 1") == compare(path("in"), .equal, .constant(1)))
        #expect(try KeyPathPredicate("a.in.ALL == 1") == compare(path("a.in.ALL"), .equal, .constant(1)))
        #expect(try KeyPathPredicate("`first name` == 'Ada'") == compare(path("first name"), .equal, .constant("Ada")))
        #expect(try KeyPathPredicate("größe.straße > 1") == compare(path("größe.straße"), .greater, .constant(1)))
        #expect(try KeyPathPredicate("🍎·x == 1") == compare(path("🍎·x"), .equal, .constant(1)))
        // Quotation marks, brackets and math symbols are not key characters: such keys are quoted.
        let quoted = compare(path("“q”.a≥b.（x）"), .equal, .constant(1))
        #expect(quoted.description == "`“q”`.`a≥b`.`（x）` == 1")
        #expect(try KeyPathPredicate(quoted.description) == quoted)
    }

    @Test("keywords are ASCII words: keys that uppercase to a keyword stay keys")
    func nonASCIIKeywords() throws {
        // Swift uppercases dotless ı to I and long ſ to S: "ın" is not IN, "ſome" is not SOME.
        #expect(try KeyPathPredicate("ın == 1") == compare(path("ın"), .equal, .constant(1)))
        #expect(try KeyPathPredicate("ſome == 1 AND ﬁrst == 2")
            == .and([compare(path("ſome"), .equal, .constant(1)), compare(path("ﬁrst"), .equal, .constant(2))]))
        #expect(parseError("a ın {1}")?.code == .syntax)
        #expect(compare(path("ın"), .equal, .constant(1)).description == "ın == 1")
    }

    @Test("a $variable whose name is not a plain word is written between backquotes")
    func quotedVariables() throws {
        #expect(try KeyPathPredicate("$`a b` == 1 AND $`x.y`.z == 2 AND $`` == 3")
            == .and([compare(.variable("a b"), .equal, .constant(1)),
                     compare(.variable("x.y", keyPath: try KeyValuePath("z")), .equal, .constant(2)),
                     compare(.variable(""), .equal, .constant(3))]))
        let subquery = PredicateSubquery(collection: path("lines"), variable: "a line", predicate: compare(.variable("a line"), .equal, .constant(1)))
        let predicate = compare(.subquery(subquery), .equal, .list([]))
        #expect(predicate.description == "SUBQUERY(lines, $`a line`, $`a line` == 1) == {}")
        #expect(try KeyPathPredicate(predicate.description) == predicate)
    }

    @Test("a key path deeper than KeyValuePath allows is an error, not a crash")
    func longKeyPath() {
        let text = Array(repeating: "a", count: KeyValuePath.maximumComponents + 1).joined(separator: ".") + " == 1"
        #expect(parseError(text)?.code == .invalidKeyPath)
    }
}
