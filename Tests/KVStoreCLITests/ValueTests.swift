import KVStore
import Testing
import TestSupport

/// `value`: key paths and collection operators over all records of a kind.
@Suite(.tags(.subprocess), .skippedByTag) struct ValueTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        let records = [
            #"{"kind":"invoice","id":"1","values":{"amount":120,"customer":{"$ref":"person/ada"}}}"#,
            #"{"kind":"invoice","id":"2","values":{"amount":80,"customer":{"$ref":"person/grace"}}}"#,
            #"{"kind":"invoice","id":"3","values":{"amount":45,"customer":{"$ref":"person/ada"}}}"#,
            #"{"kind":"invoice","id":"4","values":{"note":"no amount"}}"#,
            #"{"kind":"person","id":"ada","values":{"name":"Ada","address":{"city":"London"}}}"#,
            #"{"kind":"person","id":"grace","values":{"name":"Grace","address":{"city":"New York"}}}"#,
            #"{"kind":"person","id":"hedy","values":{"name":"Hedy","address":{"city":"London"}}}"#,
        ]
        try dir.kvstore(["load", store], input: records.joined(separator: "\n"))
    }

    @Test(arguments: [
        ("invoice", "@count", "4"),
        ("invoice", "@sum.amount", "245"),
        ("invoice", "@avg.amount", "61.25"),
        ("invoice", "@max.amount", "120"),
        ("invoice", "@min.amount", "45"),
        ("invoice", "@count.amount", "4"),
        ("invoice", "amount", "[120,80,45,null]"),
        ("invoice", "customer.name", #"["Ada","Grace","Ada",null]"#),
        ("invoice", "@distinctUnionOfObjects.customer.name", #"["Ada","Grace"]"#),
        ("invoice", "@unionOfObjects.customer.name", #"["Ada","Grace","Ada"]"#),
        ("person", "@distinctUnionOfObjects.address.city", #"["London","New York"]"#),
        ("person", "@max.name", #""Hedy""#),
        ("nobody", "@count", "0"),
        ("nobody", "@sum.amount", "0"),
        ("nobody", "@avg.amount", "null"),
        ("nobody", "name", "[]"),
    ])
    func aKeyPathOverAKindPrintsTypedJSON(_ kind: String, _ keyPath: String, _ expected: String) throws {
        #expect(try dir.succeed("value", store, kind, keyPath).stdout == expected + "\n")
    }

    @Test func prettyIndents() throws {
        #expect(try dir.succeed("value", store, "person", "name", "--pretty").stdout == "[\n  \"Ada\",\n  \"Grace\",\n  \"Hedy\"\n]\n")
    }

    @Test func errorsAreOneLine() throws {
        try dir.fail(["value", store, "invoice", "@cnt"], says: "unknown collection operator '@cnt'")
        try dir.fail(["value", store, "invoice", "a..b"], says: "invalid key path 'a..b'")
        try dir.fail(["value", store, "invoice", "@sum.note"], says: "@sum")
        try dir.fail(["value", store, "no kind", "@count"], says: "invalid record reference 'no kind'")
        try dir.fail(["value", dir.path("nothing"), "invoice", "@count"], says: "no store here")
    }
}
