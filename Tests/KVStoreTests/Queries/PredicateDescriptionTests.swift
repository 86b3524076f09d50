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
        for _ in 0 ..< 500 {
            let predicate = RandomPredicate.predicate(depth: 3, using: &random)
            let text = predicate.description
            #expect(try KeyPathPredicate(text) == predicate, "\(text)")
        }
    }
}

/// Random predicates, every case of the value type.
enum RandomPredicate {
    static func predicate(depth: Int, using random: inout some RandomNumberGenerator) -> KeyPathPredicate {
        switch Int.random(in: 0 ..< (depth > 0 ? 6 : 3), using: &random) {
        case 0: return Bool.random(using: &random) ? .true : .false
        case 1, 2: return comparison(depth: depth, using: &random)
        case 3: return .and((0 ..< Int.random(in: 2 ... 3, using: &random)).map { _ in predicate(depth: depth - 1, using: &random) })
        case 4: return .or((0 ..< Int.random(in: 2 ... 3, using: &random)).map { _ in predicate(depth: depth - 1, using: &random) })
        default: return .not(predicate(depth: depth - 1, using: &random))
        }
    }

    static func comparison(depth: Int, using random: inout some RandomNumberGenerator) -> KeyPathPredicate {
        let op = PredicateOperator.allCases.randomElement(using: &random)!
        let quantifier = [nil, PredicateQuantifier.anyElement, .everyElement, .noElement].randomElement(using: &random)!
        let options = [StringComparisonOptions(), .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]]
            .randomElement(using: &random)!
        let right: KeyPathExpression = op == .between ? .list([expression(depth: 0, using: &random), expression(depth: 0, using: &random)])
            : op == .matches ? .constant("a.*") : expression(depth: depth, using: &random)
        return compare(expression(depth: depth, using: &random), op, right, options: options, quantifier: quantifier)
    }

    static func expression(depth: Int, using random: inout some RandomNumberGenerator) -> KeyPathExpression {
        let keyPath = ["a", "b.c", "lines.@sum.amount", "tags.@count", "@count", "@max.in"].randomElement(using: &random)!
        switch Int.random(in: 0 ..< (depth > 0 ? 6 : 4), using: &random) {
        case 0: return .keyPath(try! KeyValuePath(["name", "address.city", "lines.qty", "in.ALL", "@avg.x"].randomElement(using: &random)!))
        case 1: return .constant([.null, true, 7, -2.5, "s", .date(Date(timeIntervalSinceReferenceDate: 3))].randomElement(using: &random)!)
        case 2: return .variable("v", keyPath: Bool.random(using: &random) ? nil : try! KeyValuePath(keyPath))
        case 3: return .list([])
        case 4: return .list([expression(depth: depth - 1, using: &random), expression(depth: depth - 1, using: &random)])
        default:
            let subquery = PredicateSubquery(
                collection: expression(depth: depth - 1, using: &random), variable: "x",
                predicate: predicate(depth: depth - 1, using: &random)
            )
            return .subquery(subquery, keyPath: Bool.random(using: &random) ? nil : try! KeyValuePath(keyPath))
        }
    }
}
