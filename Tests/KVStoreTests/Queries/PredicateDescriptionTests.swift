import Foundation
import Testing
@testable import KVStore

@Suite("KeyPathPredicate description")
struct PredicateDescriptionTests {
    /// Texts that must print as written (the printed form is canonical).
    static let canonical = [
        "TRUEPREDICATE",
        "a == 1 AND (b == 2 OR c == 3) AND NOT d == nil",
        "(a == 1 AND b == 2) AND c == 3",
        "NOT (a == 1 OR b == 2)",
        "NOT NOT a == 1",
        #"name BEGINSWITH[cd] "é\"\\\n\t\u0001""#,
        "ANY tags IN {\"a\", \"b\"}",
        "ALL lines.qty > 0 OR NONE lines.sku LIKE[c] \"x*\"",
        "age BETWEEN {$low, 65}",
        "SUBQUERY(lines, $l, $l.qty > 1 AND $l.sku MATCHES \"A.*\").@count > 0",
        "#in.`a b`.`1st`.`back\\`tick` == -9223372036854775808",
        "x == 2.5 OR x == -0.0 OR x == 1e+100 OR x == 5e-324",
        "when < CAST(\"2024-05-01T12:00:00.25Z\", \"NSDate\")",
        "when > CAST(1e+20, \"NSDate\") OR when == CAST(\"NaN\", \"NSDate\")",
        "customer == CAST(\"{\\\"$ref\\\":\\\"person/ada\\\"}\", \"JSON\")",
        "lines.@sum.amount >= 100 AND tags.@count > 2",
        "@count == 0 OR @sum.`a b` < 1",
    ]

    @Test("canonical texts print as written and parse back", arguments: canonical)
    func printsAsWritten(text: String) throws {
        let predicate = try KeyPathPredicate(text)
        #expect(predicate.description == text)
        #expect(try KeyPathPredicate(predicate.description) == predicate)
    }

    @Test("values built in Swift print as text that parses back to them")
    func builtValues() throws {
        let x = path("x")
        let values: [Value] = [
            .null, true, 0, .int(.max), .int(.min), 0.1, .double(-0.0), .double(.nan), .double(.infinity),
            .double(.leastNonzeroMagnitude), "", "quote ' \" ` and \\", "\u{0}\u{7F}\r", "e\u{301}", .bytes(Data([0, 255])),
            .date(Date(timeIntervalSinceReferenceDate: -0.0)), .date(Date(timeIntervalSinceReferenceDate: 1e300)),
            .date(Date(timeIntervalSinceReferenceDate: -1.5)), [1, "a", [2.5]], ["k": .null],
            .reference(try RecordRef("person/ada")),
        ]
        for value in values {
            let predicate = compare(x, .equal, .constant(value))
            #expect(try KeyPathPredicate(predicate.description) == predicate, "\(predicate)")
        }
        let keys = ["and", "ANY", "a b", "1", "tab\there", "é", "`", "\\"]
        for key in keys {
            let predicate = compare(.keyPath(try KeyValuePath(components: [.key("x"), .key(key)])), .less, .variable("v"))
            #expect(try KeyPathPredicate(predicate.description) == predicate, "\(predicate)")
        }
    }

    @Test("random predicates round-trip through their description")
    func randomRoundTrip() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0 ..< 2000 {
            let predicate = RandomPredicate.predicate(depth: 3, using: &random)
            let text = predicate.description
            #expect(try KeyPathPredicate(text) == predicate, "\(text)")
        }
    }
}
