import Foundation
import KVStore
import Testing
import TestSupport

/// `query`, `count` and `value --where`: predicates, sort keys, paging, projections, formats,
/// variables, explain, and their errors.
@Suite(.tags(.subprocess), .skippedByTag) struct QueryCommandTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        let records = [
            #"{"kind":"feed","id":"a","values":{"title":"Swift Blog"}}"#,
            #"{"kind":"feed","id":"b","values":{"title":"Databases"}}"#,
            #"{"kind":"item","id":"1","values":{"title":"apple","read":false,"score":3,"feed":{"$ref":"feed/a"},"published":{"$date":"2024-01-03T00:00:00Z"}}}"#,
            #"{"kind":"item","id":"2","values":{"title":"Banana","read":true,"score":2.5,"feed":{"$ref":"feed/b"},"published":{"$date":"2024-01-01T00:00:00Z"}}}"#,
            #"{"kind":"item","id":"3","values":{"title":"cherry","read":false,"feed":{"$ref":"feed/a"},"published":{"$date":"2024-01-02T00:00:00Z"}}}"#,
            #"{"kind":"item","id":"4","values":{"title":"Apple","read":false,"score":10,"feed":{"$ref":"feed/b"}}}"#,
        ]
        try dir.kvstore(["load", store], input: records.joined(separator: "\n"))
    }

    private func ids(_ arguments: String...) throws -> [String] {
        try dir.succeed(["query", store, "item"] + arguments).objects().map { $0["id"]?.stringValue ?? "?" }
    }

    @Test func queryPrintsMatchingRecordsAsDumpDoesInIDOrder() throws {
        let result = try dir.succeed("query", store, "item", "read == NO AND score > 2")
        let dumped = try dir.succeed("dump", store, "--kind", "item").lines
        #expect(result.lines == [dumped[0], dumped[3]])
        #expect(try ids() == ["1", "2", "3", "4"])
        #expect(try ids("TRUEPREDICATE") == ["1", "2", "3", "4"])
        #expect(try dir.succeed("query", store, "nothing").stdout.isEmpty)
    }

    @Test func sortKeysOrderTheResults() throws {
        #expect(try ids("--sort", "title") == ["4", "2", "1", "3"])
        #expect(try ids("--sort", "title:c") == ["1", "4", "2", "3"])
        #expect(try ids("--sort", "title:desc:c") == ["3", "2", "1", "4"])
        #expect(try ids("--sort", "score:desc") == ["4", "1", "2", "3"])  // missing last descending
        #expect(try ids("--sort", "published") == ["4", "2", "3", "1"])  // missing first ascending
        #expect(try ids("--sort", "feed.title", "--sort", "score:desc") == ["4", "2", "1", "3"])
        #expect(try ids("--sort", "title:localized").count == 4)
    }

    @Test func limitOffsetAndPaging() throws {
        #expect(try ids("--limit", "2") == ["1", "2"])
        #expect(try ids("--sort", "title:c", "--limit", "2", "--offset", "1") == ["4", "2"])
        #expect(try ids("--offset", "3") == ["4"])
        #expect(try ids("--limit", "0").isEmpty)
        var paged: [String] = []
        for offset in [0, 3] { paged += try ids("--sort", "score", "--limit", "3", "--offset", String(offset)) }
        #expect(paged == (try ids("--sort", "score")))
    }

    @Test func keysProjectAndFormatsMatchDump() throws {
        let projected = try dir.succeed("query", store, "item", "feed.title == 'Swift Blog'", "--keys", "title,nothing")
        #expect(projected.stdout == #"""
            {"kind":"item","id":"1","values":{"title":"apple"}}
            {"kind":"item","id":"3","values":{"title":"cherry"}}

            """#)
        let table = try dir.succeed("query", store, "item", "score >= 10", "--keys", "title,score", "--format", "table")
        #expect(table.lines == ["REF     KEY    VALUE", "item/4  score  10", "item/4  title  \"Apple\""])
        let json = try dir.succeed("query", store, "item", "score >= 10", "--format", "json")
        let dumpJSON = try dir.succeed("dump", store, "--kind", "item", "--format", "json").stdout
        #expect(json.stdout.hasPrefix("[\n  {\n    \"kind\": \"item\",\n    \"id\": \"4\""))
        #expect(dumpJSON.contains(json.stdout.dropFirst(2).dropLast(3)))
        #expect(try dir.succeed("query", store, "item", "FALSEPREDICATE", "--format", "json").stdout == "[]\n")
    }

    @Test func variablesBindThePredicate() throws {
        #expect(try ids("score > $min", "--var", "min=2.5") == ["1", "4"])
        #expect(try ids("feed == $f AND title BEGINSWITH[c] $p", "--var", #"f={"$ref":"feed/a"}"#, "--var", #"$p="A""#) == ["1"])
    }

    @Test func explainPrintsThePlan() throws {
        #expect(try dir.succeed("query", store, "item", "read == NO", "--sort", "score", "--explain").stdout == "scan item\n")
    }

    @Test func explainNamesTheIndexAQueryReads() throws {
        try dir.succeed("index", "add", store, "item", "feed,published")
        let query = ["query", store, "item", "feed == $f AND published > $d", "--var", #"f={"$ref":"feed/a"}"#,
                     "--var", #"d={"$date":"2024-01-01T00:00:00Z"}"#, "--sort", "published"]
        #expect(try dir.succeed(query + ["--explain"]).stdout == "index item.feed,published\n")
        #expect(try dir.succeed(query).objects().map { $0["id"]?.stringValue ?? "?" } == ["3", "1"])
    }

    @Test func countPrintsTheNumberOfMatches() throws {
        #expect(try dir.succeed("count", store, "item").stdout == "4\n")
        #expect(try dir.succeed("count", store, "item", "read == NO").stdout == "3\n")
        #expect(try dir.succeed("count", store, "item", "score >= $s", "--var", "s=3").stdout == "2\n")
        #expect(try dir.succeed("count", store, "nothing", "x == 1").stdout == "0\n")
    }

    @Test func valueWhereRestrictsTheCollection() throws {
        #expect(try dir.succeed("value", store, "item", "@sum.score", "--where", "read == NO").stdout == "13\n")
        #expect(try dir.succeed("value", store, "item", "@avg.score", "--where", "read == YES").stdout == "2.5\n")
        #expect(try dir.succeed("value", store, "item", "title", "--where", "feed.title == $t", "--var", #"t="Databases""#).stdout
                == #"["Banana","Apple"]"# + "\n")
        #expect(try dir.succeed("value", store, "item", "@count", "--where", "score > 100").stdout == "0\n")
        #expect(try dir.succeed("value", store, "item", "@sum.score").stdout == "15.5\n")
    }

    @Test func badInputIsOneLineAndChangesNothing() throws {
        let before = try dir.snapshot(store)
        try dir.fail(["query", store, "item", "score >= "], says: "invalid predicate: expected a value after '>=' at line 1, column 10")
        try dir.fail(["query", store, "item", "a ==\n  AND"], says: "at line 2, column 3")
        try dir.fail(["count", store, "item", "score >"], says: "invalid predicate: ")
        try dir.fail(["value", store, "item", "@sum.score", "--where", "score IN"], says: "invalid predicate: ")
        try dir.fail(["query", store, "item", "--sort", "score:dsc"], says: "invalid sort key 'score:dsc': unknown option 'dsc'")
        try dir.fail(["query", store, "item", "--sort", ":desc"], says: "invalid sort key ':desc': the key path is empty")
        try dir.fail(["query", store, "item", "score > $min"], says: "the predicate's $min has no value; give it with --var min=VALUE")
        try dir.fail(["count", store, "item", "score > $min", "--var", "max=1"], says: "$min has no value")
        try dir.fail(["query", store, "item", "--var", "min"], says: "invalid --var 'min': expected NAME=VALUE")
        try dir.fail(["query", store, "item", "--var", "min=abc"], says: "invalid --var 'min': invalid VALUE (typed JSON expected)")
        try dir.fail(["query", store, "item", "--keys", "title,,score"], says: "invalid --keys 'title,,score': an empty key")
        try dir.fail(["query", store, "no kind"], says: "invalid record reference 'no kind'")
        try dir.fail(["query", dir.path("nothing"), "item"], says: "no store here")
        try dir.fail(["query", store, "item", "title MATCHES '('"], says: "invalid predicate: '(' is not a regular expression")
        #expect(try dir.snapshot(store) == before)
    }

    @Test func badOptionsAreCommandLineMistakes() throws {
        for (arguments, message) in [
            (["query", store, "item", "--limit", "-1"], "--limit must be 0 or more, not -1"),
            (["query", store, "item", "--offset", "-3"], "--offset must be 0 or more, not -3"),
            (["query", store, "item", "--limit", "x"], "--limit"),
            (["query", store, "item", "--format", "xml"], "--format"),
            (["query", store, "item", "--bogus"], "--bogus"),
        ] {
            let result = try KVStoreExecutable.run(arguments, in: dir)
            #expect(result.status == 64, "\(arguments): \(result)")
            #expect(result.stdout.isEmpty && result.stderr.hasPrefix("kvstore: ") && result.stderr.contains(message), "\(result)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        }
    }
}
