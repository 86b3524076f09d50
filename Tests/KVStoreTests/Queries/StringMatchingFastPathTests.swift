import Foundation
import Testing
import TestSupport
@testable import KVStore

/// `BEGINSWITH`, `ENDSWITH` and `CONTAINS` between ASCII strings compare bytes, ASCII letters
/// folded in place: the same answers as folding both strings first, and no answer at all (the
/// folding path) beyond ASCII.
@Suite struct StringMatchingFastPathTests {
    static let pieces = ["a", "B", "ab", "AB", "x", "Z", "z", "@", "[", "`", "{", " ", "0", "é", "ﬁ", "K", "\u{212A}", "ſ", "SS", "ß"]

    static func string(_ random: inout IndexValueGenerator) -> String {
        (0 ..< random.int(6)).map { _ in pieces[random.int(pieces.count)] }.joined()
    }

    @Test func asciiMatchingIsFoldingThenMatching() {
        var random = IndexValueGenerator(11)
        let options: [StringComparisonOptions] = [[], [.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive]]
        var fast = 0
        for _ in 0 ..< 20_000 {
            let (string, pattern) = (Self.string(&random), Self.string(&random))
            let option = options[random.int(options.count)]
            let op = [PredicateOperator.beginsWith, .endsWith, .contains][random.int(3)]
            let (folded, foldedPattern) = (StringFolding.fold(string, option), StringFolding.fold(pattern, option))
            let slow = switch op {
            case .beginsWith: StringMatching.beginsWith(folded, foldedPattern)
            case .endsWith: StringMatching.endsWith(folded, foldedPattern)
            default: StringMatching.contains(folded, foldedPattern)
            }
            if let matched = StringMatching.asciiMatch(op, string, pattern, options: option) {
                fast += 1
                #expect(matched == slow, "\(string.debugDescription) \(op) \(option) \(pattern.debugDescription)")
            } else {
                #expect(!UTF8Text.isASCII(string) || !UTF8Text.isASCII(pattern))
            }
            let comparator = PredicateComparator(op: op, options: option, regularExpression: nil)
            #expect((try? comparator.holds(.string(string), .string(pattern))) == slow)
        }
        #expect(fast > 1000)
    }

    static let beyondASCII: [(String, PredicateOperator, String, StringComparisonOptions, Bool)] = [
        ("ÉCOLE", PredicateOperator.contains, "col", StringComparisonOptions([.caseInsensitive, .diacriticInsensitive]), true),
        ("ÉCOLE", .contains, "col", [.caseInsensitive], true),
        ("ÉCOLE", .beginsWith, "e", [.caseInsensitive], false),
        ("ÉCOLE", .beginsWith, "e", [.caseInsensitive, .diacriticInsensitive], true),
        ("\u{212A}elvin", .beginsWith, "kel", [.caseInsensitive], true),  // the Kelvin sign folds to k
        ("oﬁce", .contains, "FI", [.caseInsensitive], true),
        ("Straße", .endsWith, "SSE", [.caseInsensitive], true),
        ("SWIFT", .contains, "wif", [], false),
        ("SWIFT", .contains, "wif", [.caseInsensitive], true),
    ]

    @Test func beyondASCIIFoldingDecides() throws {
        for (string, op, pattern, options, holds) in Self.beyondASCII {
            #expect(try PredicateComparator(op: op, options: options, regularExpression: nil).holds(.string(string), .string(pattern)) == holds,
                    "\(string) \(op) \(pattern)")
        }
    }

    /// A `$variable` compared in a scan reads as its value.
    @Test func aBoundVariableFiltersAsItsValue() throws {
        let t = try TemporaryStore()
        try t.store.write { txn in
            for (n, title) in ["Swift on Linux", "ÉCOLE de Swift", "rust", "SWIFTLY"].enumerated() { try txn.insert(["title": .string(title)], as: ref("item/\(n)")) }
        }
        let bound = try KeyPathPredicate("title CONTAINS[cd] $w AND NOT title BEGINSWITH $x")
        #expect(bound.bindingScalarVariables(["w": "swift", "x": "Sw"]) == (try KeyPathPredicate("title CONTAINS[cd] 'swift' AND NOT title BEGINSWITH 'Sw'")))
        let query = RecordQuery(kind: "item", where: bound, variables: ["w": "swift", "x": "Sw"])
        #expect(try t.store.fetch(query).map(\.ref.id) == ["1", "3"])
        // An array or a subquery's own variable stays a variable.
        let list = try KeyPathPredicate("title IN $l")
        #expect(list.bindingScalarVariables(["l": ["a"]]) == list)
    }
}
