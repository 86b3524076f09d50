import Testing
@testable import KVStore

/// Records in a dictionary; a reference to a record not in it is dangling and reads as nil.
private final class MemorySource: KeyValueSource {
    let records: [RecordRef: [String: Value]]
    private(set) var reads: [String] = []

    init(_ records: [RecordRef: [String: Value]]) {
        self.records = records
    }

    func value(forKey key: String, of ref: RecordRef) throws -> Value? {
        reads.append("\(ref).\(key)")
        return records[ref]?[key]
    }
}

/// People, invoices and a project that reference one another.
private struct Fixture {
    let ada = try! RecordRef("person/ada")
    let charles = try! RecordRef("person/charles")
    let ghost = try! RecordRef("person/ghost")  // never stored
    let invoice1 = try! RecordRef("invoice/1")
    let invoice2 = try! RecordRef("invoice/2")
    let invoice3 = try! RecordRef("invoice/3")
    let engine = try! RecordRef("project/engine")
    let source: MemorySource

    init() {
        source = MemorySource([
            ada: [
                "name": "Ada",
                "title": "Countess",
                "born": 1815,
                "address": ["city": "London", "street": .null],
                "tags": ["math", "poetry", "math"],
                "scores": [90, .null, 85],
                "friends": [.reference(charles), .reference(ghost)],
                "spouse": .reference(ghost),
                "invoices": [.reference(invoice1), .reference(invoice2)],
                "matrix": [[1, 2], [2, 3], .null],
                "nested": [[["v": 1], ["v": 2]], ["v": 3], .null],
            ],
            charles: ["name": "Charles", "address": ["city": "London"]],
            invoice1: ["amount": 100, "lines": [["sku": "A", "qty": 2], ["sku": "B"], ["sku": "A"]]],
            invoice2: ["amount": 250, "lines": [["sku": "C"]]],
            invoice3: ["lines": []],
            engine: ["owner": .reference(ada), "name": "Analytical Engine"],
        ])
    }

    func value(_ path: String, of ref: RecordRef) throws -> Value? {
        try KeyPathEvaluator.value(forKeyPath: KeyValuePath(path), of: ref, source: source)
    }

    /// Every invoice, as the store passes "all records of a kind": references in id order.
    func invoices(_ path: String) throws -> Value? {
        let all: [Value] = [.reference(invoice1), .reference(invoice2), .reference(invoice3)]
        return try KeyPathEvaluator.value(forKeyPath: KeyValuePath(path), ofCollection: all, source: source)
    }
}

@Suite("KeyPathEvaluator")
struct KeyPathEvaluatorTests {
    @Test(
        "reads keys of records, nested dictionaries and referenced records",
        arguments: [
            ("name", "Ada"),
            ("address.city", "London"),
            ("address.street", .null),
            ("tags", ["math", "poetry", "math"]),
            ("spouse", .reference(try! RecordRef("person/ghost"))),
        ] as [(String, Value)]
    )
    func readsKeys(path: String, expected: Value) throws {
        #expect(try Fixture().value(path, of: Fixture().ada) == expected)
    }

    @Test(
        "a missing or null intermediate, or a dangling reference, gives nil",
        arguments: ["nothing", "nothing.city", "address.street.name", "address.zip", "spouse.name", "spouse.address.city"]
    )
    func missingGivesNil(path: String) throws {
        let fixture = Fixture()
        #expect(try fixture.value(path, of: fixture.ada) == nil)
    }

    @Test("follows references at any depth")
    func followsReferences() throws {
        let fixture = Fixture()
        #expect(try fixture.value("owner.name", of: fixture.engine) == "Ada")
        #expect(try fixture.value("owner.address.city", of: fixture.engine) == "London")
        #expect(fixture.source.reads == [
            "project/engine.owner", "person/ada.name", "project/engine.owner", "person/ada.address",
        ])
    }

    @Test("maps a key over an array element-wise, nil elements as null")
    func elementWise() throws {
        let fixture = Fixture()
        #expect(try fixture.value("friends.name", of: fixture.ada) == ["Charles", .null])
        #expect(try fixture.value("friends.address.city", of: fixture.ada) == ["London", .null])
        #expect(try fixture.value("owner.invoices.amount", of: fixture.engine) == [100, 250])
    }

    @Test("keeps nested arrays nested")
    func nestedArrays() throws {
        let fixture = Fixture()
        #expect(try fixture.value("nested.v", of: fixture.ada) == [[1, 2], 3, .null])
        #expect(try fixture.value("invoices.lines.sku", of: fixture.ada) == [["A", "B", "A"], ["C"]])
        #expect(try fixture.value("invoices.lines.qty", of: fixture.ada) == [[2, .null, .null], [.null]])
    }

    @Test(
        "applies operators to arrays, the rest of the path read from each element",
        arguments: [
            ("scores.@count", Value.int(3)),
            ("scores.@sum", .int(175)),
            ("scores.@avg", .double(175.0 / 3.0)),
            ("scores.@max", .int(90)),
            ("scores.@min", .int(85)),
            ("tags.@unionOfObjects", ["math", "poetry", "math"]),
            ("tags.@distinctUnionOfObjects", ["math", "poetry"]),
            ("invoices.@sum.amount", .int(350)),
            ("invoices.@max.amount", .int(250)),
            ("invoices.@count.amount", .int(2)),
            ("friends.@unionOfObjects.name", ["Charles"]),
            ("matrix.@unionOfArrays", [1, 2, 2, 3]),
            ("matrix.@distinctUnionOfArrays", [1, 2, 3]),
            ("matrix.@distinctUnionOfSets", [1, 2, 3]),
            ("invoices.lines.@count", [3, 1]),
            ("invoices.lines.@distinctUnionOfObjects.sku", [["A", "B"], ["C"]]),
            ("invoices.@unionOfObjects.lines.@count", [3, 1]),
        ] as [(String, Value)]
    )
    func operators(path: String, expected: Value) throws {
        let fixture = Fixture()
        #expect(try fixture.value(path, of: fixture.ada) == expected)
    }

    @Test("applies operators through references")
    func operatorsThroughReferences() throws {
        let fixture = Fixture()
        #expect(try fixture.value("owner.invoices.@sum.amount", of: fixture.engine) == .int(350))
        #expect(try fixture.value("owner.invoices.@avg.amount", of: fixture.engine) == .double(175))
        #expect(try fixture.value("owner.friends.@count", of: fixture.engine) == .int(2))
        #expect(try fixture.value("owner.spouse.invoices.@sum.amount", of: fixture.engine) == .int(0))
    }

    @Test(
        "an operator on a missing value gives nil, but 0 for @count and @sum",
        arguments: CollectionOperator.allCases
    )
    func operatorOnMissing(op: CollectionOperator) throws {
        let fixture = Fixture()
        let expected: Value? = op == .count || op == .sum ? .int(0) : nil
        #expect(try fixture.value("nothing.\(op).x", of: fixture.ada) == expected)
        #expect(try fixture.value("address.street.\(op)", of: fixture.ada) == expected)
    }

    @Test("applies a leading operator to all records of a kind, and maps a leading key")
    func allRecords() throws {
        let fixture = Fixture()
        #expect(try fixture.invoices("@count") == .int(3))
        #expect(try fixture.invoices("@sum.amount") == .int(350))
        #expect(try fixture.invoices("@avg.amount") == .double(350.0 / 3.0))
        #expect(try fixture.invoices("@min.amount") == .int(100))
        #expect(try fixture.invoices("amount") == [100, 250, .null])
        #expect(try fixture.invoices("lines.@count") == [3, 1, 0])
        #expect(try fixture.invoices("@unionOfObjects.lines.sku") == [["A", "B", "A"], ["C"], []])
        #expect(try fixture.invoices("lines.@distinctUnionOfObjects.sku") == [["A", "B"], ["C"], []])
    }

    @Test("@count reads no key of the elements")
    func countReadsNothing() throws {
        let fixture = Fixture()
        #expect(try fixture.invoices("@count.amount") == .int(3))
        #expect(fixture.source.reads.isEmpty)
    }

    @Test("evaluates from a plain value, without a record")
    func fromValue() throws {
        let path = try KeyValuePath("rows.cells.@sum")
        let value: Value = ["rows": [["cells": [1, 2]], ["cells": [3.5]], ["other": 1]]]
        let result = try KeyPathEvaluator.value(
            at: path.components[...], in: value, source: Fixture().source, fullPath: path
        )
        #expect(result == [.int(3), .double(3.5), .int(0)])
        let source = Fixture().source
        #expect(try KeyPathEvaluator.value(at: path.components[...], in: nil, source: source, fullPath: path) == nil)
        #expect(try KeyPathEvaluator.value(at: [], in: 7, source: source, fullPath: path) == 7)
    }

    @Test("@count on a dictionary counts its entries, as NSDictionary's count does")
    func countOfADictionary() throws {
        let fixture = Fixture()
        #expect(try fixture.value("address.@count", of: fixture.ada) == 2, "null entries count too")
        #expect(try fixture.value("address.@count", of: fixture.charles) == 1)
        let path = try KeyValuePath("@count.city")
        let counted = try KeyPathEvaluator.value(at: path.components[...], in: ["a": 1, "b": [:]], source: fixture.source, fullPath: path)
        #expect(counted == 2, "a right key path is ignored, as for an array")
    }

    // MARK: Errors

    @Test(
        "an operator on a value that is not an array is an error naming the operator, path and type",
        arguments: [
            ("title.@sum", "collection operator @sum needs a collection, 'title' is a string"),
            ("address.@sum", "collection operator @sum needs a collection, 'address' is a dictionary"),
            ("spouse.@max.x", "collection operator @max needs a collection, 'spouse' is a reference"),
            ("@count", "collection operator @count needs a collection, the value is a reference"),
            ("scores.@sum.@count", "collection operator @count needs a collection, an element of 'scores' is an int"),
            ("invoices.@unionOfArrays.x",
             "collection operator @unionOfArrays needs a collection of arrays, found a reference element"),
        ]
    )
    func notACollection(path: String, message: String) {
        let fixture = Fixture()
        let error = #expect(throws: KeyValueCodingError.self) { try fixture.value(path, of: fixture.ada) }
        #expect(error?.code == .notACollection)
        #expect(error?.ref == fixture.ada)
        #expect(error?.keyPath == path)
        #expect(error?.description == "person/ada: \(message) (key path '\(path)')")
    }

    @Test(
        "walking a key into a value without keys is an error naming the path and type",
        arguments: [
            ("name.first", "cannot read key 'first': 'name' is a string"),
            ("born.year", "cannot read key 'year': 'born' is an int"),
            ("scores.x", "cannot read key 'x': an element of 'scores' is an int"),
            ("tags.@max.length", "cannot read key 'length': an element of 'tags' is a string"),
            ("matrix.@unionOfArrays.x", "cannot read key 'x': an element of 'matrix' is an int"),
            ("friends.name.first", "cannot read key 'first': 'friends.name' is a string"),
        ]
    )
    func notAContainer(path: String, message: String) {
        let fixture = Fixture()
        let error = #expect(throws: KeyValueCodingError.self) { try fixture.value(path, of: fixture.ada) }
        #expect(error?.code == .notAContainer)
        #expect(error?.description == "person/ada: \(message), not a dictionary or record (key path '\(path)')")
    }

    @Test("operator errors carry the path and the starting record")
    func operatorErrors() {
        let fixture = Fixture()
        let error = #expect(throws: KeyValueCodingError.self) {
            try fixture.value("owner.tags.@sum", of: fixture.engine)
        }
        #expect(error?.code == .nonNumeric)
        #expect(error?.description
            == "project/engine: collection operator @sum needs numbers, found a string (key path 'owner.tags.@sum')")
        let mixed = #expect(throws: KeyValueCodingError.self) { try fixture.invoices("@max.lines") }
        #expect(mixed?.code == .incomparable)
        #expect(mixed?.ref == nil)
    }

    @Test("errors of the source reach the caller unchanged")
    func sourceErrors() {
        struct Unreadable: Error, Equatable {}
        struct FailingSource: KeyValueSource {
            func value(forKey key: String, of ref: RecordRef) throws -> Value? { throw Unreadable() }
        }
        let ada = Fixture().ada
        #expect(throws: Unreadable()) {
            try KeyPathEvaluator.value(forKeyPath: KeyValuePath("name"), of: ada, source: FailingSource())
        }
        #expect(throws: Unreadable()) {
            try KeyPathEvaluator.value(
                forKeyPath: KeyValuePath("@sum.amount"), ofCollection: [.reference(ada)], source: FailingSource()
            )
        }
    }
}
