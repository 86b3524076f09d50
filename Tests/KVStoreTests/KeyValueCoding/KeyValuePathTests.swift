import Testing
@testable import KVStore

@Suite("KeyValuePath")
struct KeyValuePathTests {
    @Test(
        "parses keys and operators",
        arguments: [
            ("name", [KeyValuePath.Component.key("name")]),
            ("address.city", [.key("address"), .key("city")]),
            ("items.@sum.amount", [.key("items"), .operator(.sum), .key("amount")]),
            ("@count", [.operator(.count)]),
            ("lines.@distinctUnionOfObjects.sku", [.key("lines"), .operator(.distinctUnionOfObjects), .key("sku")]),
            ("naïve key.x-y_z", [.key("naïve key"), .key("x-y_z")]),
            ("a@b.c", [.key("a@b"), .key("c")]),
            ("@unionOfArrays.@count", [.operator(.unionOfArrays), .operator(.count)]),
        ]
    )
    func parses(text: String, components: [KeyValuePath.Component]) throws {
        let path = try KeyValuePath(text)
        #expect(path.components == components)
        #expect(path.description == text)
    }

    @Test("parses every operator by its name", arguments: CollectionOperator.allCases)
    func parsesOperator(op: CollectionOperator) throws {
        let path = try KeyValuePath("items.@\(op.rawValue).x")
        #expect(path.components == [.key("items"), .operator(op), .key("x")])
        #expect(op.description == "@\(op.rawValue)")
    }

    @Test("round-trips through its description and compares by components")
    func roundTrips() throws {
        let path = try KeyValuePath("owner.invoices.@sum.amount")
        #expect(try KeyValuePath(path.description) == path)
        #expect(Set([path, try KeyValuePath("owner.invoices.@sum.amount")]).count == 1)
        #expect(path != (try KeyValuePath("owner.invoices.@avg.amount")))
        #expect(path.firstKey == "owner")
        #expect(try KeyValuePath("@count").firstKey == nil)
    }

    @Test(
        "rejects empty paths and empty components",
        arguments: [
            ("", "the key path is empty"),
            ("a..b", "empty component at position 2"),
            (".a", "a leading '.'"),
            ("a.", "a trailing '.'"),
            (".", "a leading '.'"),
        ]
    )
    func rejectsEmpty(text: String, problem: String) {
        let error = #expect(throws: KeyValueCodingError.self) { try KeyValuePath(text) }
        #expect(error?.code == .invalidKeyPath)
        #expect(error?.keyPath == text)
        #expect(error?.message.contains(problem) == true, "\(String(describing: error))")
    }

    @Test("rejects a lone @, listing the operators", arguments: ["@", "items.@", "items.@.x"])
    func rejectsLoneAt(text: String) {
        let error = #expect(throws: KeyValueCodingError.self) { try KeyValuePath(text) }
        #expect(error?.code == .invalidKeyPath)
        #expect(error?.message.contains("'@' needs an operator name") == true)
        #expect(error?.message.contains("@distinctUnionOfSets") == true)
    }

    @Test("names an unknown operator and lists the valid ones")
    func rejectsUnknownOperator() {
        let error = #expect(throws: KeyValueCodingError.self) { try KeyValuePath("items.@summ.amount") }
        #expect(error?.code == .unknownOperator)
        #expect(error?.keyPath == "items.@summ.amount")
        let message = error?.message ?? ""
        #expect(message.hasPrefix("unknown collection operator '@summ' in key path 'items.@summ.amount'"))
        for op in CollectionOperator.allCases {
            #expect(message.contains(op.description))
        }
    }

    @Test("suggests the operator an unknown name differs from only by case")
    func suggestsByCase() {
        let error = #expect(throws: KeyValueCodingError.self) { try KeyValuePath("@DistinctUnionOfObjects.x") }
        #expect(error?.code == .unknownOperator)
        #expect(error?.message.contains("did you mean @distinctUnionOfObjects?") == true)
    }

    @Test("builds from components, checking each key")
    func buildsFromComponents() throws {
        let path = try KeyValuePath(components: [.key("items"), .operator(.count)])
        #expect(path.description == "items.@count")
        #expect(path == (try KeyValuePath("items.@count")))
        for bad: [KeyValuePath.Component] in [[], [.key("")], [.key("a.b")], [.key("@sum")]] {
            #expect(throws: KeyValueCodingError.self) { try KeyValuePath(components: bad) }
        }
    }
}
