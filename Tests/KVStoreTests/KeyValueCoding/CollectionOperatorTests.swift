import Foundation
import Testing
@testable import KVStore

@Suite("CollectionOperator")
struct CollectionOperatorTests {
    private let path = "items.@op.x"

    private func combine(_ op: CollectionOperator, _ values: [Value?]) throws -> Value? {
        try op.combine(values, keyPath: path)
    }

    private func error(_ op: CollectionOperator, _ values: [Value?]) -> KeyValueCodingError? {
        #expect(throws: KeyValueCodingError.self) { try op.combine(values, keyPath: path) }
    }

    // MARK: @count

    @Test("@count counts elements, nulls included, and never reads the right key path")
    func count() throws {
        var reads = 0
        let elements: [Value] = [1, .null, "x", ["a": 1]]
        let result = try CollectionOperator.count.apply(to: elements, keyPath: path) { _ in
            reads += 1
            return nil
        }
        #expect(result == .int(4))
        #expect(reads == 0)
        #expect(try combine(.count, []) == .int(0))
        #expect(try combine(.count, [nil, .null]) == .int(2))
    }

    // MARK: @sum

    @Test(
        "@sum adds ints exactly, missing and null as 0",
        arguments: [
            ([], Value.int(0)),
            ([1, 2, 3], .int(6)),
            ([1, nil, .null, 4], .int(5)),
            ([nil, .null], .int(0)),
            ([.int(.max), 1, -1], .int(.max)),
            ([.int(.min), -1, 1], .int(.min)),
            ([.int(.max), .int(.max), .int(.min), .int(.min), 2], .int(0)),
        ] as [([Value?], Value)]
    )
    func sumOfInts(values: [Value?], expected: Value) throws {
        #expect(try combine(.sum, values) == expected)
    }

    @Test("@sum of any double is a double, the ints summed exactly first")
    func sumWithDoubles() throws {
        #expect(try combine(.sum, [1, 2.5]) == .double(3.5))
        #expect(try combine(.sum, [0.1, 0.2]) == .double(0.1 + 0.2))
        #expect(try combine(.sum, [2.0]) == .double(2.0))
        // Int64.max + 1 + 0.0: the int part is exactly 2^63, which is a double.
        #expect(try combine(.sum, [.int(.max), 1, 0.0]) == .double(9_223_372_036_854_775_808.0))
        let nan = try #require(try combine(.sum, [1, .double(.nan)])?.doubleValue)
        #expect(nan.isNaN)
    }

    @Test("@sum beyond Int64 is an overflow error", arguments: [
        [.int(.max), 1] as [Value?],
        [.int(.min), -1],
        [.int(.max), .int(.max), .int(.max)],
    ])
    func sumOverflow(values: [Value?]) {
        let error = error(.sum, values)
        #expect(error?.code == .arithmeticOverflow)
        #expect(error?.keyPath == path)
        #expect(error?.message.contains("@sum overflows") == true)
    }

    @Test(
        "@sum and @avg reject non-numbers, naming the type",
        arguments: [CollectionOperator.sum, .avg],
        [("x", "a string"), (true, "a bool"), ([1], "an array"), (.bytes(Data([1])), "bytes")] as [(Value, String)]
    )
    func nonNumeric(op: CollectionOperator, bad: (value: Value, type: String)) {
        let error = error(op, [1, bad.value])
        #expect(error?.code == .nonNumeric)
        #expect(error?.description == "collection operator \(op) needs numbers, found \(bad.type) (key path '\(path)')")
    }

    // MARK: @avg

    @Test(
        "@avg divides the exact sum by the count, counting missing and null as 0",
        arguments: [
            ([1, 2], 1.5),
            ([1, 2, 2], 5.0 / 3.0),
            ([1, nil, .null, 2], 0.75),
            ([.null], 0.0),
            ([1, 2.5], 1.75),
            ([.int(.max), .int(.max)], Double(Int64.max)),
            ([.int(.max), 1, -1, .int(.min)], -0.25),
            ([175, 0, 0], 175.0 / 3.0),
        ] as [([Value?], Double)]
    )
    func average(values: [Value?], expected: Double) throws {
        #expect(try combine(.avg, values) == .double(expected))
    }

    @Test("@avg of nothing is nil")
    func averageOfNothing() throws {
        #expect(try combine(.avg, []) == nil)
    }

    // MARK: @max and @min

    @Test(
        "@max and @min order numbers, strings and dates, returning the element as it is",
        arguments: [
            ([3, 1, 2], Value.int(3), Value.int(1)),
            ([1, 2.5, 2], .double(2.5), .int(1)),
            ([-0.5, 1, .null, nil], .int(1), .double(-0.5)),
            (["b", "a", "C"], "b", "C"),
            (["z", "é", "Z"], "é", "Z"),
            ([.date(Date(timeIntervalSince1970: 10)), .date(Date(timeIntervalSince1970: -5))],
             .date(Date(timeIntervalSince1970: 10)), .date(Date(timeIntervalSince1970: -5))),
            ([1, .double(.nan), 0], .int(1), .int(0)),
            ([.int(1), .double(1.0)], .int(1), .int(1)),
            ([.double(1.0), .int(1)], .double(1.0), .double(1.0)),
        ] as [([Value?], Value, Value)]
    )
    func extremes(values: [Value?], max: Value, min: Value) throws {
        #expect(try combine(.max, values) == max)
        #expect(try combine(.min, values) == min)
    }

    @Test("@max and @min compare ints with doubles exactly, not by converting the int")
    func exactMixedComparison() throws {
        let twoTo53: Int64 = 1 << 53
        // Double(2^53 + 1) == 2^53, but the int is larger.
        #expect(try combine(.max, [.double(Double(twoTo53)), .int(twoTo53 + 1)]) == .int(twoTo53 + 1))
        #expect(try combine(.min, [.int(twoTo53 + 1), .double(Double(twoTo53))]) == .double(Double(twoTo53)))
        // Double(Int64.max) is 2^63, larger than every Int64.
        #expect(try combine(.max, [.double(Double(Int64.max)), .int(.max)]) == .double(Double(Int64.max)))
        #expect(try combine(.min, [.double(-Double(Int64.max)), .int(.min)]) == .double(-Double(Int64.max)))
        #expect(try combine(.min, [.int(.min), .double(-1e300)]) == .double(-1e300))
        #expect(try combine(.max, [.int(-1), .double(-1.5)]) == .int(-1))
        #expect(try combine(.max, [.int(-2), .double(-1.5)]) == .double(-1.5))
    }

    @Test("@max and @min of nothing to compare are nil", arguments: [[], [nil], [.null, nil], [.double(.nan)]] as [[Value?]])
    func extremesOfNothing(values: [Value?]) throws {
        #expect(try combine(.max, values) == nil)
        #expect(try combine(.min, values) == nil)
    }

    @Test(
        "@max and @min reject values that do not order together",
        arguments: [
            ([1, "one"], "cannot compare an int with a string"),
            (["a", .date(Date())], "cannot compare a string with a date"),
            ([true], "cannot order a bool"),
            ([.bytes(Data())], "cannot order bytes"),
            ([1, [1]], "cannot order an array"),
        ] as [([Value?], String)]
    )
    func incomparable(values: [Value?], problem: String) {
        for op in [CollectionOperator.max, .min] {
            let error = error(op, values)
            #expect(error?.code == .incomparable)
            #expect(error?.message.hasPrefix("collection operator \(op) \(problem)") == true, "\(String(describing: error))")
        }
    }

    // MARK: Unions of objects

    @Test("@unionOfObjects keeps order and duplicates, leaving nulls out")
    func unionOfObjects() throws {
        #expect(try combine(.unionOfObjects, [2, nil, 1, .null, 2, "a"]) == [2, 1, 2, "a"])
        #expect(try combine(.unionOfObjects, []) == [])
    }

    @Test("@distinctUnionOfObjects keeps the first of equal values, in order")
    func distinctUnionOfObjects() throws {
        #expect(try combine(.distinctUnionOfObjects, [2, nil, 1, .null, 2, "a", 1, "a"]) == [2, 1, "a"])
        // Values are equal only with the same type: 1 and 1.0 are distinct.
        #expect(try combine(.distinctUnionOfObjects, [1, 1.0, 1]) == [1, 1.0])
        #expect(try combine(.distinctUnionOfObjects, [["k": 1], ["k": 1]]) == [["k": 1]])
        #expect(try combine(.distinctUnionOfObjects, [nil]) == [])
    }

    // MARK: Unions of arrays

    private func unionOfArrays(_ op: CollectionOperator, _ elements: [Value], key: String? = nil) throws -> Value? {
        try op.apply(to: elements, keyPath: path) { element in
            guard let key else { return element }
            return element.dictionaryValue?[key]
        }
    }

    @Test("@unionOfArrays concatenates the inner arrays' values, leaving nulls out")
    func unionOfArrays() throws {
        #expect(try unionOfArrays(.unionOfArrays, [[1, 2], [], [2, .null, 3]]) == [1, 2, 2, 3])
        let lines: [Value] = [[["sku": "A"], ["sku": "B"]], [["sku": "A"], ["qty": 1]]]
        #expect(try unionOfArrays(.unionOfArrays, lines, key: "sku") == ["A", "B", "A"])
        #expect(try unionOfArrays(.unionOfArrays, []) == [])
    }

    @Test("the distinct unions of arrays keep first occurrences in order", arguments: [
        CollectionOperator.distinctUnionOfArrays, .distinctUnionOfSets,
    ])
    func distinctUnionOfArrays(op: CollectionOperator) throws {
        #expect(try unionOfArrays(op, [[3, 1], [1, 2, 3], [.null, 2, 4]]) == [3, 1, 2, 4])
        let lines: [Value] = [[["sku": "B"], ["sku": "A"]], [["sku": "A"], ["sku": "C"]]]
        #expect(try unionOfArrays(op, lines, key: "sku") == ["B", "A", "C"])
    }

    @Test("the unions of arrays skip null elements", arguments: [
        CollectionOperator.unionOfArrays, .distinctUnionOfArrays, .distinctUnionOfSets,
    ])
    func unionOfArraysSkipsNull(op: CollectionOperator) throws {
        #expect(try unionOfArrays(op, [.null, [1], .null]) == [1])
    }

    @Test(
        "the unions of arrays reject an element that is not an array",
        arguments: [CollectionOperator.unionOfArrays, .distinctUnionOfArrays, .distinctUnionOfSets],
        [1, "x", ["k": 1]] as [Value]
    )
    func unionOfArraysNeedsArrays(op: CollectionOperator, bad: Value) {
        let error = #expect(throws: KeyValueCodingError.self) { try unionOfArrays(op, [[1], bad]) }
        #expect(error?.code == .notACollection)
        #expect(error?.message.hasPrefix(
            "collection operator \(op) needs a collection of arrays, found \(bad.type.withArticle) element"
        ) == true)
    }

    @Test("an error thrown by the right key path reaches the caller unchanged")
    func rightPathErrorsPropagate() {
        struct Boom: Error, Equatable {}
        for op in CollectionOperator.allCases where op != .count {
            let elements: [Value] = op.rawValue.hasSuffix("Arrays") || op == .distinctUnionOfSets ? [[1]] : [1]
            #expect(throws: Boom()) { try op.apply(to: elements, keyPath: path) { _ in throw Boom() } }
        }
    }
}
