import KVStore
import Testing
import TestSupport

/// `dump` in its three formats, with and without `--kind`.
@Suite(.tags(.subprocess), .skippedByTag) struct DumpTests {
    let dir: TestDirectory
    let store: String

    /// A store with records of two kinds, written out of order.
    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        try dir.succeed("set", store, "person/grace", "name", #""Grace""#)
        try dir.succeed("set", store, "invoice/2", "amount", "80")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        try dir.succeed("set", store, "person/ada", "tags", #"["math"]"#)
        try dir.succeed("set", store, "invoice/1", "amount", "120.5")
        try dir.succeed("set", store, "invoice/1", "customer", #"{"$ref":"person/ada"}"#)
    }

    static let jsonl = """
        {"kind":"invoice","id":"1","values":{"amount":120.5,"customer":{"$ref":"person/ada"}}}
        {"kind":"invoice","id":"2","values":{"amount":80}}
        {"kind":"person","id":"ada","values":{"name":"Ada","tags":["math"]}}
        {"kind":"person","id":"grace","values":{"name":"Grace"}}

        """

    @Test func jsonlIsOneSortedLinePerRecordOrderedByKindThenID() throws {
        #expect(try dir.succeed("dump", store).stdout == Self.jsonl)
        #expect(try dir.succeed("dump", store, "--format", "jsonl").stdout == Self.jsonl)
    }

    /// The help shows a line's fields in the order dump writes them (it said "id" came first).
    @Test func helpShowsTheFieldsInTheOrderWritten() throws {
        let help = try dir.succeed("dump", "--help").stdout
        #expect(help.contains(#"{"kind":…,"id":…,"values":{…}}"#), "\(help)")
        #expect(!help.contains(#"{"id":…,"kind":…"#), "\(help)")
    }

    @Test func kindSelectsTheRecordsOfOneKind() throws {
        let people = try dir.succeed("dump", store, "--kind", "person")
        #expect(people.lines == Array(Self.jsonl.split(separator: "\n").suffix(2).map(String.init)))
        #expect(try dir.succeed("dump", store, "--kind", "nobody").stdout.isEmpty)
    }

    @Test func jsonIsThePrettyArrayOfTheSameObjects() throws {
        let json = try dir.succeed("dump", store, "--format", "json")
        let objects = try dir.succeed("dump", store).objects().map(Value.dictionary)
        #expect(try TypedJSON.value(from: json.stdout) == .array(objects))
        #expect(json.stdout.hasPrefix("[\n  {\n    \"kind\": \"invoice\",\n    \"id\": \"1\",\n    \"values\": {\n"))
        #expect(json.stdout.hasSuffix("  }\n]\n"))
        #expect(try dir.succeed("dump", store, "--format", "json", "--kind", "nobody").stdout == "[]\n")
    }

    @Test func tableHasOneAlignedLinePerKey() throws {
        let table = try dir.succeed("dump", store, "--format", "table")
        #expect(table.stdout == """
            REF           KEY       VALUE
            invoice/1     amount    120.5
            invoice/1     customer  {"$ref":"person/ada"}
            invoice/2     amount    80
            person/ada    name      "Ada"
            person/ada    tags      ["math"]
            person/grace  name      "Grace"

            """)
        let invoices = try dir.succeed("dump", store, "--format", "table", "--kind", "invoice")
        #expect(invoices.lines.count == 4)
    }

    /// A key holding a line break or a tab is shown as a JSON string, so each key keeps one
    /// aligned line (the raw line break split the row in two).
    @Test func tableShowsAKeyWithControlCharactersQuoted() throws {
        let odd = dir.path("odd")
        try dir.succeed("set", odd, "note/1", "two\nlines", "1")
        try dir.succeed("set", odd, "note/1", "plain", "2")
        #expect(try dir.succeed("dump", odd, "--format", "table").stdout == """
            REF     KEY           VALUE
            note/1  plain         2
            note/1  "two\\nlines"  1

            """)
    }

    @Test func aStoreWithoutRecordsDumpsNothing() throws {
        let empty = dir.path("empty")
        try dir.succeed("set", empty, "person/ada", "name", #""Ada""#)
        try dir.succeed("rm", empty, "person/ada")
        #expect(try dir.succeed("dump", empty).stdout.isEmpty)
        #expect(try dir.succeed("dump", empty, "--format", "json").stdout == "[]\n")
        #expect(try dir.succeed("dump", empty, "--format", "table").stdout == "REF  KEY  VALUE\n")
    }
}
