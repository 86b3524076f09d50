import Foundation
@testable import KVStore

/// Random predicates over every case of the value type, with names, strings and numbers chosen to
/// be hard to print: keywords, look-alikes of keywords, quotes, controls, marks, extreme numbers.
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
        switch Int.random(in: 0 ..< (depth > 0 ? 6 : 4), using: &random) {
        case 0: return .keyPath(keyPath(using: &random))
        case 1: return .constant(value(using: &random))
        case 2: return .variable(name(using: &random), keyPath: Bool.random(using: &random) ? nil : keyPath(using: &random))
        case 3: return .list([])
        case 4: return .list([expression(depth: depth - 1, using: &random), expression(depth: depth - 1, using: &random)])
        default:
            let subquery = PredicateSubquery(
                collection: expression(depth: depth - 1, using: &random), variable: name(using: &random),
                predicate: predicate(depth: depth - 1, using: &random)
            )
            return .subquery(subquery, keyPath: Bool.random(using: &random) ? nil : keyPath(using: &random))
        }
    }

    /// Keys and names: keywords in any case, words that uppercase to keywords, non-words.
    static let names = [
        "a", "name", "in", "ANY", "Between", "nil", "yes", "SELF", "subquery", "ın", "ſome", "ﬁrst", "größe", "1st", "0x1",
        "a b", "a.b", "“q”", "≥", "a-b", "`", "\\", "'", "\"", "#", "$", "@", "tab\t", "e\u{301}", "🍎", "\u{200B}",
    ]

    static func name(using random: inout some RandomNumberGenerator) -> String {
        Int.random(in: 0 ..< 20, using: &random) == 0 ? "" : names.randomElement(using: &random)!
    }

    static func keyPath(using random: inout some RandomNumberGenerator) -> KeyValuePath {
        let operators: [CollectionOperator] = [.count, .sum, .avg, .max, .min]
        let components = (0 ..< Int.random(in: 1 ... 3, using: &random)).map { _ -> KeyValuePath.Component in
            if Int.random(in: 0 ..< 4, using: &random) == 0 { return .operator(operators.randomElement(using: &random)!) }
            let key = names.filter { !$0.contains(".") && !$0.hasPrefix("@") }.randomElement(using: &random)!
            return .key(key.precomposedStringWithCanonicalMapping)
        }
        return try! KeyValuePath(components: components)
    }

    static func value(using random: inout some RandomNumberGenerator) -> Value {
        switch Int.random(in: 0 ..< 9, using: &random) {
        case 0: return [.null, true, false].randomElement(using: &random)!
        case 1: return .int([0, 1, -1, .max, .min, Int64.random(in: .min ... .max, using: &random)].randomElement(using: &random)!)
        case 2:  // any bits, but NaN has one spelling: its sign and payload are not kept
            let double = Double(bitPattern: UInt64.random(in: .min ... .max, using: &random))
            return .double(double.isNaN ? .nan : double)
        case 3: return .double([0.1, -0.0, 1e300, .leastNonzeroMagnitude, .infinity, -.infinity, .nan, 2.5].randomElement(using: &random)!)
        case 4: return .date(Date(timeIntervalSinceReferenceDate: [0, -1.5, 736_000_000.25, 1e20, .nan].randomElement(using: &random)!))
        case 5: return .array([.int(1), .string(string(using: &random))])
        case 6: return .reference(try! RecordRef("person/ada"))
        default: return .string(string(using: &random))
        }
    }

    /// A string of scalars that need escapes, quotes, marks, and ordinary letters.
    static func string(using random: inout some RandomNumberGenerator) -> String {
        let scalars: [Unicode.Scalar] = ["a", "Z", " ", "'", "\"", "`", "\\", "\n", "\r", "\t", "\0", "\u{7F}", "\u{1}", "\u{301}",
                                         "é", "ß", "\u{2028}", "\u{FEFF}", "😀", "*", "?", "%", "$", "#", "“"]
        var view = String.UnicodeScalarView()
        for _ in 0 ..< Int.random(in: 0 ... 6, using: &random) { view.append(scalars.randomElement(using: &random)!) }
        return String(view)
    }
}
