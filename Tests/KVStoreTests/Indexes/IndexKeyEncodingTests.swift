import Foundation
import PropertyBased
import Testing
import TestSupport
@testable import KVStore

/// The index key encoding orders values as the predicate language compares them.
@Suite struct IndexKeyEncodingTests {
    func encoded(_ value: Value, folded: Bool = false) -> [UInt8] {
        IndexKeyEncoding.component(value, folded: folded)
    }

    /// -1, 0 or 1 as `memcmp` orders the encodings.
    func byteOrder(_ a: Value, _ b: Value, folded: Bool = false) -> ComparisonResult {
        let (x, y) = (encoded(a, folded: folded), encoded(b, folded: folded))
        return x == y ? .orderedSame : x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
    }

    @Test func intsAndDoublesOrderExactlyTogether() {
        let twoTo53 = 9_007_199_254_740_992.0
        #expect(byteOrder(.int(9_007_199_254_740_993), .double(twoTo53)) == .orderedDescending)
        #expect(byteOrder(.int(9_007_199_254_740_992), .double(twoTo53)) == .orderedSame)
        #expect(byteOrder(.int(5), .double(5.0)) == .orderedSame)
        #expect(byteOrder(.double(-0.0), .int(0)) == .orderedSame)
        #expect(byteOrder(.int(.max), .double(9.223372036854775807e18)) == .orderedAscending)  // 2^63 as a double
        #expect(byteOrder(.int(.min), .double(-9.223372036854775808e18)) == .orderedSame)
        #expect(byteOrder(.double(.leastNonzeroMagnitude), .int(0)) == .orderedDescending)
        #expect(byteOrder(.double(-.infinity), .int(.min)) == .orderedAscending)
        #expect(byteOrder(.double(.infinity), .double(.greatestFiniteMagnitude)) == .orderedDescending)
        #expect(byteOrder(.int(-3), .double(-2.5)) == .orderedAscending)
    }

    /// The stored bytes of numbers, which stores on disk hold: class, biased exponent, fraction.
    @Test func numbersEncodeToTheStoredBytes() {
        #expect(encoded(.int(1)) == [0x22, 0x04, 0x4C] + [UInt8](repeating: 0, count: 8))
        #expect(encoded(.int(-1)) == [0x20, 0xFB, 0xB3] + [UInt8](repeating: 0xFF, count: 8))
        #expect(encoded(.int(3)) == [0x22, 0x04, 0x4D, 0x80] + [UInt8](repeating: 0, count: 7))
        #expect(encoded(.double(-0.75)) == [0x20, 0xFB, 0xB4, 0x7F] + [UInt8](repeating: 0xFF, count: 7))
        #expect(encoded(.double(.infinity)) == [0x22, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 8))
        #expect(encoded(.date(Date(timeIntervalSinceReferenceDate: 0.5))) == [0x42, 0x04, 0x4B] + [UInt8](repeating: 0, count: 8))
    }

    @Test func nanSortsAfterEveryNumberAndBeforeStrings() {
        #expect(byteOrder(.double(.nan), .double(.infinity)) == .orderedDescending)
        #expect(byteOrder(.double(.nan), .string("")) == .orderedAscending)
        #expect(byteOrder(.double(.nan), .double(-.nan)) == .orderedSame)
    }

    @Test func theClassesOrderMissingFirst() {
        let ordered: [Value] = [.null, .array([]), .bool(false), .bool(true), .int(-1), .int(0), .int(1), .double(.nan),
                                .string(""), .date(Date(timeIntervalSinceReferenceDate: -1)), .date(Date(timeIntervalSinceReferenceDate: 0)),
                                .date(Date(timeIntervalSinceReferenceDate: 1)), .bytes(Data()), .reference(ref("a/b")), .dictionary([:])]
        for (a, b) in zip(ordered, ordered.dropFirst()) where !(a == .array([])) {
            #expect(byteOrder(a, b) == .orderedAscending, "\(a) before \(b)")
        }
        #expect(encoded(.null) == [IndexKeyEncoding.Class.missing])
    }

    @Test func stringsOrderByScalarWithNULEscaped() {
        #expect(byteOrder("a", "a\u{0}") == .orderedAscending)
        #expect(byteOrder("a\u{0}", "a\u{1}") == .orderedAscending)
        #expect(byteOrder("a\u{0}b", "ab") == .orderedAscending)
        #expect(byteOrder("Z", "a") == .orderedAscending)
        #expect(byteOrder("\u{FFFF}", "\u{10000}") == .orderedAscending)
        #expect(byteOrder("e\u{301}", "\u{E9}") == .orderedSame)  // NFC: one spelling
        #expect(encoded("a\u{0}") == [IndexKeyEncoding.Class.string, 0x61, 0, 0xFF, 0, 1])
        #expect(!encoded("\u{0}").starts(with: encoded("")))  // no value's encoding starts another's
    }

    @Test func aFoldedIndexEncodesAsCaseAndDiacriticInsensitiveComparisonsDo() {
        #expect(byteOrder("ÉCOLE", "ecole", folded: true) == .orderedSame)
        #expect(byteOrder("Straße", "STRASSE", folded: true) == .orderedSame)
        #expect(byteOrder("I", "ı", folded: true) != .orderedSame)
        #expect(byteOrder("ÉCOLE", "ecole") != .orderedSame)
        #expect(byteOrder(.int(3), .double(3), folded: true) == .orderedSame)
    }

    @Test func tuplesOrderByTheirFirstComponentThenTheNext() {
        func tuple(_ values: Value...) -> [UInt8] { values.flatMap { encoded($0) } }
        #expect(tuple("a", 2).lexicographicallyPrecedes(tuple("a", 10)))
        #expect(tuple("a", 10).lexicographicallyPrecedes(tuple("a\u{0}", 1)))
        #expect(tuple("a", "z").lexicographicallyPrecedes(tuple("ab", "a")))
        #expect(tuple(.null, 5).lexicographicallyPrecedes(tuple(-1, 5)))
    }

    /// Random pairs: where the predicate language orders two values, the encodings order alike;
    /// where it finds them equal (`==`), the encodings are equal, and only then.
    @Test func randomValuesEncodeInThePredicateLanguagesOrder() async {
        await propertyCheck(count: 400, input: Gen.uint64()) { seed in
            var generator = IndexValueGenerator(seed)
            for folded in [false, true] {
                let options: StringComparisonOptions = folded ? [.caseInsensitive, .diacriticInsensitive] : []
                let comparator = PredicateComparator(op: .less, options: options, regularExpression: nil)
                for _ in 0 ..< 20 {
                    let (a, b) = (generator.value(), generator.value())
                    let bytes = byteOrder(a, b, folded: folded)
                    if let order = comparator.order(a, b) {
                        #expect(bytes == order, "\(a) vs \(b), folded \(folded)")
                    }
                    if let equal = comparator.equal(a, b), !a.isNull {
                        #expect((bytes == .orderedSame) == equal, "\(a) == \(b), folded \(folded)")
                    }
                }
            }
        }
    }

    /// Sorting by the encoding sorts each family as the predicate language orders it.
    @Test func sortingByTheEncodingSortsNumbersStringsAndDates() async {
        await propertyCheck(count: 100, input: Gen.uint64()) { seed in
            var generator = IndexValueGenerator(seed)
            let values = (0 ..< 60).map { _ in generator.scalar() }.sorted { encoded($0).lexicographicallyPrecedes(encoded($1)) }
            let comparator = PredicateComparator(op: .less, options: [], regularExpression: nil)
            for (i, a) in values.enumerated() {
                for b in values[(i + 1)...] {
                    if let order = comparator.order(a, b) { #expect(order != .orderedDescending, "\(a) sorted before \(b)") }
                }
            }
        }
    }
}
