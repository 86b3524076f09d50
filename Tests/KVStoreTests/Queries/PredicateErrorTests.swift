import Foundation
import Synchronization
import Testing
@testable import KVStore

@Suite("KeyPathPredicate errors")
struct PredicateErrorTests {
    @Test("each malformed predicate is one line naming line, column and what was expected")
    func messages() {
        let cases: [(String, KeyPathPredicateError.Code, String)] = [
            ("name == ", .syntax, "expected a value after '==' at line 1, column 9"),
            ("name ==\n  AND x == 1", .syntax, "expected a value after '==', found 'AND' at line 2, column 3"),
            ("", .syntax, "expected a predicate at line 1, column 1"),
            ("name", .syntax, "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES) after 'name' at line 1, column 5"),
            ("name LIKES 'a'", .syntax, "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES) after 'name', found 'LIKES' at line 1, column 6"),
            ("(a == 1", .syntax, "expected ')' or a continuation of the predicate after '1' at line 1, column 8"),
            ("a == 1 b == 2", .syntax, "expected AND, OR or the end of the predicate after '1', found 'b' at line 1, column 8"),
            ("a == 'open", .syntax, "expected ' to close the string that starts at line 1, column 6"),
            ("a == 1 ^ 2", .syntax, "unexpected character '^' at line 1, column 8"),
            ("a ==[x] 1", .syntax, "expected c, d or cd in the options, found 'x' at line 1, column 6"),
            ("a BETWEEN {1}", .syntax, "expected two bounds {low, high} after 'BETWEEN', found 1 at line 1, column 13"),
            ("a == 99999999999999999999", .invalidLiteral, "the integer 99999999999999999999 is out of the range of Int64 at line 1, column 6"),
            ("a == 1e999", .invalidLiteral, "the number 1e999 is out of the range of a double at line 1, column 6"),
            (#"a == 'bad \q'"#, .invalidLiteral, #"unknown escape '\q' at line 1, column 11"#),
            (#"a == '\uD800'"#, .invalidLiteral, #"'\u' names a surrogate, not a character at line 1, column 7"#),
            ("a == CAST('soon', 'NSDate')", .invalidLiteral, "'soon' is not a date: give ISO 8601 (2024-05-01T12:00:00Z) or seconds since 2001 at line 1, column 11"),
            ("a == CAST('1', 'NSNumber')", .syntax, "expected 'NSDate' or 'JSON' as the type to cast to, found 'NSNumber' at line 1, column 16"),
            ("a.@avgs == 1", .invalidKeyPath, "unknown collection operator '@avgs'; expected one of \(CollectionOperator.list) at line 1, column 3"),
            ("a MATCHES '(unclosed'", .invalidRegularExpression, "'(unclosed' is not a regular expression for MATCHES at line 1, column 11"),
            ("SUBQUERY(lines, l, TRUEPREDICATE).@count > 0", .syntax, "expected a $variable after ',', found 'l' at line 1, column 17"),
            ("a == $", .syntax, "expected a name after '$' at line 1, column 6"),
            ("@nope == 1", .invalidKeyPath, "unknown collection operator '@nope'; expected one of \(CollectionOperator.list) at line 1, column 1"),
            ("AND == 1", .syntax, "expected a predicate, found 'AND' at line 1, column 1"),
            ("name == “Ada”", .syntax, "unexpected character '“'; quote strings with ' or \" at line 1, column 9"),
            ("age ≥ 18", .syntax, "unexpected character '≥' at line 1, column 5"),
            ("a BETWEEN[c] {1}", .syntax, "expected two bounds {low, high} after 'BETWEEN', found 1 at line 1, column 16"),
            ("a == 0x", .invalidLiteral, "'0x' is not a hexadecimal integer at line 1, column 6"),
            ("a == 0b102", .invalidLiteral, "'0b102' is not a binary integer at line 1, column 6"),
            ("a == 0x10000000000000000", .invalidLiteral, "the integer 0x10000000000000000 is out of the range of Int64 at line 1, column 6"),
            (#"a == '\uDE00'"#, .invalidLiteral, #"'\u' names a surrogate, not a character at line 1, column 7"#),
            (#"a == '\uD83Dx'"#, .invalidLiteral, #"'\u' names a surrogate, not a character at line 1, column 7"#),
            (#"a == '\777'"#, .invalidLiteral, #"the octal escape '\777' is above \377 at line 1, column 7"#),
            (#"a == '\x4'"#, .invalidLiteral, #"expected two hex digits after '\x' at line 1, column 7"#),
        ]
        for (text, code, message) in cases {
            let error = parseError(text)
            #expect(error?.code == code, "\(text)")
            #expect(error?.description == message, "\(text)")
            #expect(error?.description.contains("\n") == false)
        }
    }

    @Test("nesting beyond the cap is an error; at the cap it parses")
    func nesting() throws {
        let limit = KeyPathPredicate.maximumNesting
        let deep = String(repeating: "(", count: limit) + "a == 1" + String(repeating: ")", count: limit)
        #expect(try KeyPathPredicate(deep) == compare(path("a"), .equal, .constant(1)))
        for text in [
            String(repeating: "(", count: limit + 1) + "a == 1" + String(repeating: ")", count: limit + 1),
            String(repeating: "NOT ", count: limit + 1) + "a == 1",
            String(repeating: "!", count: 100_000) + "a == 1",
            "a IN " + String(repeating: "{", count: 100_000),
            String(repeating: "SUBQUERY(a, $x, ", count: limit / KeyPathPredicate.subqueryNestingCost + 1),
        ] {
            #expect(parseError(text)?.code == .nestedTooDeeply, "\(text.prefix(20))")
        }
    }

    @Test("a predicate at the nesting cap parses, prints and evaluates on a thread with a 512 KiB stack")
    func nestingFitsSmallStacks() throws {
        let fixture = try TemporaryStore()
        let store = fixture.store
        let record = try store.insert(["lines": [["qty": 1]]], kind: "invoice")
        let limit = KeyPathPredicate.maximumNesting
        let subqueries = limit / KeyPathPredicate.subqueryNestingCost
        #expect(parseError(String(repeating: "SUBQUERY(lines, $l, ", count: subqueries + 1))?.code == .nestedTooDeeply)
        let texts = [
            String(repeating: "NOT (", count: limit / 2) + "lines.qty == 1" + String(repeating: ")", count: limit / 2),
            String(repeating: "SUBQUERY(lines, $l, ", count: subqueries) + "$l.qty == 1"
                + String(repeating: ").@count == 1", count: subqueries) + " AND FALSEPREDICATE",
            "lines.qty IN " + String(repeating: "{", count: limit) + "1" + String(repeating: "}", count: limit),
        ]
        let results = Mutex<[Bool]>([])
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            for text in texts {
                guard let predicate = try? KeyPathPredicate(text),
                      (try? KeyPathPredicate(predicate.description)) == predicate,
                      let holds = try? store.read({ try $0.evaluate(predicate, on: record) })
                else { return }
                results.withLock { $0.append(holds) }
            }
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        #expect(results.withLock { $0 } == [true, false, false])
    }

    @Test("huge and hostile inputs give an error or a value, never a crash")
    func hostileInputs() throws {
        let long = (0 ..< 20_000).map { "a\($0) == \($0)" }.joined(separator: " AND ")
        guard case .and(let operands) = try KeyPathPredicate(long) else { Issue.record("not an AND"); return }
        #expect(operands.count == 20_000)
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ab$@#.'\"\\`(){}[],=!<>&|- 0123456789eANDORNOTINANYSUBQUERYCAST\n\u{E9}")
        for text in ["`@\n` == 1", "a == 'x\\\n'", "a == 'line\nbreak' b"] {
            #expect(parseError(text)?.description.contains("\n") == false, "\(text)")
        }
        for _ in 0 ..< 2000 {
            let text = String((0 ..< Int.random(in: 0 ... 40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            if let error = parseError(text) {
                #expect(error.line != nil && !error.description.contains("\n"), "\(text)")
            }
        }
    }

    @Test("evaluation errors: an unbound variable and a bad pattern in a variable")
    func evaluationErrors() throws {
        let fixture = try TemporaryStore()
        let ada = try fixture.store.insert(["name": "Ada"], kind: "person")
        try fixture.store.read { txn in
            #expect(throws: KeyPathPredicateError(.unboundVariable, "the variable $who has no value; pass it in variables")) {
                try txn.evaluate(KeyPathPredicate("FALSEPREDICATE AND name == $who"), on: ada)
            }
            #expect(throws: KeyPathPredicateError(.unboundVariable, "the variable $x has no value; pass it in variables")) {
                try txn.evaluate(KeyPathPredicate("SUBQUERY(tags, $t, $t == $x).@count > 0"), on: ada)
            }
            #expect(throws: KeyPathPredicateError(.invalidRegularExpression, "'[' is not a regular expression for MATCHES")) {
                try txn.evaluate(KeyPathPredicate("name MATCHES $pattern"), on: ada, variables: ["pattern": "["])
            }
            #expect(throws: KeyValueCodingError.self) {
                try txn.evaluate(KeyPathPredicate("TRUEPREDICATE"), on: RecordRef("person/nobody"))
            }
        }
    }
}
