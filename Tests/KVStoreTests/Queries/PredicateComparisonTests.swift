import Foundation
import Testing
@testable import KVStore

@Suite("KeyPathPredicate comparisons")
struct PredicateComparisonTests {
    let store: PredicateStore
    init() throws { store = try PredicateStore() }

    @Test("every comparison operator on ints, doubles, strings, dates and bools")
    func operators() throws {
        for text in [
            "born == 1815", "born = 1815.0", "born != 1816", "born <> 1815.5", "born < 1816", "born <= 1815",
            "born > 1814.9", "born >= 1815", "born BETWEEN {1800, 1815}", "born IN {1, 1815.0}",
            "height > 1.6 AND height < 2", "name == 'Ada'", "name < 'Adb'", "name > 'AAA'", "name BETWEEN {'A', 'B'}",
            "name IN {'Olav', 'Ada'}", "alive == NO", "alive != TRUE",
            "when == CAST('2001-01-01T00:01:40Z', 'NSDate')", "when > CAST(99.5, 'NSDate')",
            "when BETWEEN {CAST(0, 'NSDate'), CAST(100, 'NSDate')}", "TRUEPREDICATE", "NOT FALSEPREDICATE",
            "born == 1 OR name == 'Ada'", "!(born == 1) && name == 'Ada'",
        ] {
            #expect(try store.holds(text), "\(text)")
        }
        for text in ["born == 1816", "born < 1815", "born > 1815", "born BETWEEN {1816, 1900}", "born IN {}",
                     "name == 'ada'", "name > 'B'", "when < CAST(100, 'NSDate')", "FALSEPREDICATE", "NOT TRUEPREDICATE"] {
            #expect(try !store.holds(text), "\(text)")
        }
    }

    @Test("ints and doubles compare exactly: 2^53 + 1 is not 2^53 as a double")
    func exactNumbers() throws {
        let fixture = try TemporaryStore()
        let big = try fixture.store.insert(["n": .int(9_007_199_254_740_993), "max": .int(.max), "nan": .double(.nan)], kind: "n")
        func holds(_ text: String) throws -> Bool {
            try fixture.store.read { try $0.evaluate(KeyPathPredicate(text), on: big) }
        }
        #expect(try !holds("n == 9007199254740992.0"))
        #expect(try holds("n > 9007199254740992.0"))
        #expect(try holds("n == 9007199254740993"))
        #expect(try !holds("max == 9223372036854775807.0"))  // the double is 2^63, one more than Int64.max
        #expect(try holds("max < 9223372036854775807.0"))
        #expect(try !holds("nan == nan") && !holds("nan < 1") && !holds("nan >= 1"))
        #expect(try holds("nan != 1") && holds("nan != nan"))  // IEEE: NaN is unequal to everything
    }

    @Test("a missing key, null or a type mismatch makes a comparison false, never an error")
    func missingAndMismatch() throws {
        for text in [
            "nickname == 'x'", "nickname != 'x'", "nickname < 1", "address.zip == 'x'", "address.zip != 'x'",
            "name == 1815", "name != 1815", "born == '1815'", "born != '1815'", "born < 'x'", "alive > 0",
            "alive == 0", "when == 100", "born BEGINSWITH '18'", "name.first == 'A'", "born.@sum > 0",
            "address < 'x'", "born BETWEEN {'a', 'z'}", "born BETWEEN $bounds", "name IN 'Ada'",
        ] {
            #expect(try !store.holds(text, nil, ["bounds": [1]]), "\(text)")
        }
    }

    @Test("nil tests presence: == nil for missing or null, != nil for a value")
    func presence() throws {
        #expect(try store.holds("nickname == nil") && store.holds("address.zip == NULL") && store.holds("nil == nickname"))
        #expect(try store.holds("name != nil") && !store.holds("name == nil") && !store.holds("nickname != nil"))
        #expect(try !store.holds("address.zip == $v", nil, ["v": .null]))  // a null variable is no value
    }

    @Test("nil on either side tests the other side: nil == name is name == nil")
    func presenceWithNilOnTheLeft() throws {
        #expect(try !store.holds("nil == name") && store.holds("nil != name"))
        #expect(try store.holds("nil == nickname") && !store.holds("nil != nickname"))
        #expect(try store.holds("NULL == address.zip") && !store.holds("nil != address.zip"))
        #expect(try store.holds("ANY nil == scores") && !store.holds("ALL nil == scores"))
    }

    @Test("without a quantifier, == nil and != nil test the value itself, an empty array included")
    func presenceOfArrays() throws {
        #expect(try store.holds("tags != nil", store.oslo) && !store.holds("tags == nil", store.oslo))
        #expect(try store.holds("scores != nil") && !store.holds("scores == nil"))  // [90, 85.5, null]
        #expect(try store.holds("lines.qty != nil", store.invoice) && !store.holds("lines.qty == nil", store.invoice))
        // A quantifier asks about the elements.
        #expect(try store.holds("ANY scores == nil") && store.holds("ANY lines.qty == nil", store.invoice))
        #expect(try !store.holds("ANY tags != nil", store.oslo) && store.holds("NONE tags == nil", store.oslo))
    }

    @Test("$variables, in comparisons, lists and IN")
    func variables() throws {
        #expect(try store.holds("born == $year AND name IN $names", nil, ["year": 1815, "names": ["Olav", "Ada"]]))
        #expect(try store.holds("born IN {$a, $b}", nil, ["a": 1, "b": 1815]))
        #expect(try store.holds("born BETWEEN $bounds", nil, ["bounds": [1800, 1815.0]]))
        #expect(try store.holds("$who.name == 'Ada'", nil, ["who": .reference(store.ada)]))
    }

    @Test("a closed kind's undeclared key is missing, not an error")
    func closedKind() throws {
        #expect(try store.holds("n == 3", store.counter))
        #expect(try !store.holds("other == 3", store.counter))
        #expect(try store.holds("other == nil", store.counter))
    }
}
