import Foundation
import PropertyBased
import Testing
import TestSupport
@testable import KVStore

/// The key ranges the planner scans hold every value a condition matches, and — outside the
/// entries marked for a re-check — only those.
@Suite struct IndexKeyRangeTests {
    /// The condition as a predicate operator and its right side.
    static func comparison(_ condition: IndexKeyRange.Condition) -> (PredicateOperator, Value) {
        switch condition {
        case .equal(let v): (.equal, v)
        case .less(let v): (.less, v)
        case .lessOrEqual(let v): (.lessOrEqual, v)
        case .greater(let v): (.greater, v)
        case .greaterOrEqual(let v): (.greaterOrEqual, v)
        case .between(let lo, let hi): (.between, .array([lo, hi]))
        case .beginsWith(let s): (.beginsWith, .string(s))
        case .missing: (.equal, .null)
        }
    }

    static func condition(_ generator: inout IndexValueGenerator, long: Bool) -> IndexKeyRange.Condition {
        let bound = long && generator.int(3) == 0 ? Self.long(&generator) : generator.scalar()
        switch generator.int(7) {
        case 0: return .equal(bound)
        case 1: return .less(bound)
        case 2: return .lessOrEqual(bound)
        case 3: return .greater(bound)
        case 4: return .greaterOrEqual(bound)
        case 5: return .between(bound, long ? Self.long(&generator) : generator.scalar())
        default: return .beginsWith(bound.stringValue ?? "a")
        }
    }

    /// A string past the longest tuple kept whole, sharing its start with the others.
    static func long(_ generator: inout IndexValueGenerator) -> Value {
        .string(String(repeating: "x", count: 236) + (generator.string().stringValue ?? "") + ["", "a", "b"][generator.int(3)])
    }

    /// For random values and conditions, with and without folding, long strings included.
    @Test func aRangeHoldsExactlyTheValuesItsConditionMatches() async {
        await propertyCheck(count: 300, input: Gen.uint64()) { seed in
            var generator = IndexValueGenerator(seed)
            let folded = generator.int(2) == 0, long = generator.int(2) == 0
            let condition = Self.condition(&generator, long: long)
            guard let range = IndexKeyRange(then: condition, folded: folded) else { return }
            let (op, right) = Self.comparison(condition)
            let comparator = PredicateComparator(
                op: op, options: folded ? [.caseInsensitive, .diacriticInsensitive] : [], regularExpression: nil)
            for _ in 0 ..< 40 {
                var value = long && generator.int(2) == 0 ? Self.long(&generator) : generator.value()
                if case .array = value { value = .null }
                let (tuple, isCut) = IndexEntryLayout.cut(IndexKeyEncoding.component(value, folded: folded))
                let holds = condition == .missing ? value.isNull : try comparator.holds(value, right)
                let inRange = range.contains(tuple)
                if holds { #expect(inRange, "\(value) \(op) \(right) holds, but the range misses it (folded \(folded))") }
                if inRange && !isCut && !range.needsRecheck(tuple) {
                    #expect(holds, "\(value) \(op) \(right) does not hold, yet the range holds it as certain (folded \(folded))")
                }
            }
        }
    }

    @Test func aCompoundRangeFixesTheFirstKeyPathAndRangesTheNext() throws {
        let range = try #require(IndexKeyRange(equal: ["f1"], then: .greater(.int(10)), folded: false))
        func tuple(_ values: Value...) -> [UInt8] { values.flatMap { IndexKeyEncoding.component($0, folded: false) } }
        #expect(range.contains(tuple("f1", 11)))
        #expect(range.contains(tuple("f1", 10.5)))
        #expect(!range.contains(tuple("f1", 10)))
        #expect(!range.contains(tuple("f1", "11")))
        #expect(!range.contains(tuple("f2", 11)))
        #expect(!range.contains(tuple("f", 11)))
    }

    /// A string's encoding is not the start of another's: `== ""` does not hold `"\0"`, and
    /// `> ""` does.
    @Test func stringsStartingWithNULAreToldFromShorterOnes() throws {
        let component = { (value: Value) in IndexKeyEncoding.component(value, folded: false) }
        let equal = try #require(IndexKeyRange(then: .equal(""), folded: false))
        let greater = try #require(IndexKeyRange(then: .greater(""), folded: false))
        #expect(equal.contains(component("")) && !equal.contains(component("\u{0}")))
        #expect(greater.contains(component("\u{0}")) && !greater.contains(component("")))
        let prefix = try #require(IndexKeyRange(then: .beginsWith("a\u{0}"), folded: false))
        #expect(prefix.contains(component("a\u{0}b")) && !prefix.contains(component("a")) && !prefix.contains(component("ab")))
    }

    @Test func conditionsNoValueMeetsGiveTheEmptyRange() throws {
        #expect(try #require(IndexKeyRange(then: .equal(.double(.nan)), folded: false)).isEmpty)
        #expect(try #require(IndexKeyRange(then: .less(.bool(true)), folded: false)).isEmpty)
        #expect(try #require(IndexKeyRange(then: .between(1, "z"), folded: false)).isEmpty)
        #expect(IndexKeyRange(then: .equal([1, 2]), folded: false) == nil)  // whole arrays: not from an index
    }
}
