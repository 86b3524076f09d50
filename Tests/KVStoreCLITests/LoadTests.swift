import Foundation
import KVStore
import Testing
import TestSupport

/// `load`: jsonl in, through the journal, all or nothing unless batched.
@Suite(.tags(.subprocess), .skippedByTag) struct LoadTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
    }

    /// Records holding every value type: null inside arrays and dictionaries, bools, ints at the
    /// Int64 limits, doubles incl. NaN, ±infinity and -0.0, strings with Unicode and control
    /// characters, bytes, dates, arrays, nested dictionaries, a `$`-key dictionary, references.
    static let everyType = """
        {"kind":"sample","id":"all","values":{"array":[1,null,"two",[3.5,null],{"k":null}],"bool":true,\
        "bytes":{"$bytes":"AAEC/+7d"},"date":{"$date":"2016-07-15T00:00:00Z"},\
        "date2":{"$date":"1815-12-10T13:45:30.25Z"},"double":120.5,"dollar":{"$dict":{"$x":1}},\
        "false":false,"inf":{"$double":"Infinity"},"max":9223372036854775807,\
        "min":-9223372036854775808,"nan":{"$double":"NaN"},"neginf":{"$double":"-Infinity"},\
        "negzero":-0.0,"nested":{"a":{"b":[null,{"c":null}],"d":"e"}},"ref":{"$ref":"person/ada"},\
        "string":"Ünïcödé ✓ 𝄞 \\u0000\\u0001\\u001f \\"quoted\\" \\\\ \\n\\t\\r","zero":0}}
        {"kind":"person","id":"ada","values":{"name":"Ada","tags":["math","poetry"]}}
        {"kind":"person","id":"ünï/cödé id","values":{}}

        """

    @Test func dumpLoadDumpIsByteIdenticalForEveryValueType() throws {
        try dir.succeed("load", store, dir.write(Self.everyType, to: "in.jsonl"))
        let first = try dir.succeed("dump", store).stdout
        #expect(try dir.succeed("dump", store).objects().map(Value.dictionary)
                == Self.everyType.split(separator: "\n").map { try TypedJSON.value(from: String($0)) }
                    .sortedAsDump())
        try dir.succeed("load", dir.path("copy"), dir.write(first, to: "first.jsonl"))
        #expect(try dir.succeed("dump", dir.path("copy")).stdout == first)
        // Through standard input, as `dump | load` does.
        try dir.kvstore(["load", dir.path("piped")], input: first)
        #expect(try dir.succeed("dump", dir.path("piped")).stdout == first)
    }

    @Test func everyRecordGoesThroughTheJournalInOneCommit() throws {
        try dir.succeed("load", store, dir.write(Self.everyType, to: "in.jsonl"))
        let entries = try dir.succeed("journal", "list", store).objects()
        #expect(entries.map { $0["change"] } == Array(repeating: .string("recordInserted"), count: 3))
        #expect(Set(entries.map { $0["commit"] }).count == 1)
        #expect(entries.map { $0["ref"] } == ["sample/all", "person/ada", "person/ünï/cödé id"].map { .reference(try! RecordRef($0)) })
    }

    @Test func readsStandardInputForDashOrNoFile() throws {
        let line = #"{"kind":"person","id":"ada","values":{"name":"Ada"}}"#
        #expect(try dir.kvstore(["load", store, "-"], input: line + "\n").status == 0)
        #expect(try dir.kvstore(["load", dir.path("other")], input: line).status == 0)  // no final newline
        #expect(try dir.succeed("dump", dir.path("other")).stdout == line + "\n")
    }

    @Test func readsAPipeLikeAFile() throws {
        let executable = try #require(KVStoreExecutable.url).path
        let input = try dir.write(Self.everyType, to: "in.jsonl")
        let piped = try #require(try runExternalTool("/bin/sh", ["-c", #"cat "$1" | "$2" load "$3""#, "sh", input, executable, store]))
        #expect(piped.status == 0, "\(piped.output)")
        try dir.succeed("load", dir.path("fromFile"), input)
        #expect(try dir.succeed("dump", store).stdout == dir.succeed("dump", dir.path("fromFile")).stdout)
        #expect(try dir.succeed("dump", store).lines.count == 3)
    }

    /// A FILE that is a pipe — `/dev/stdin`, or the shell's `<(kvstore dump …)` — cannot be read
    /// at an offset: it is spooled like standard input, not refused with "Illegal seek".
    @Test func readsAFileThatIsAPipe() throws {
        let executable = try #require(KVStoreExecutable.url).path
        let input = try dir.write(Self.everyType, to: "in.jsonl")
        let piped = try #require(try runExternalTool("/bin/sh", ["-c", #"cat "$1" | "$2" load "$3" /dev/stdin 2>&1"#, "sh", input, executable, store]))
        #expect(piped.status == 0, "\(piped.output)")
        #expect(try dir.succeed("dump", store).lines.count == 3)
    }

    @Test func aLineWithoutIDGetsAGeneratedOne() throws {
        try dir.kvstore(["load", store], input: #"{"kind":"note","values":{"text":"a"}}"# + "\n" + #"{"kind":"note","values":{"text":"b"}}"#)
        let records = try dir.succeed("dump", store).objects()
        #expect(records.map { $0["values"] } == [.dictionary(["text": "a"]), .dictionary(["text": "b"])])
        #expect(Set(records.compactMap { $0["id"] }).count == 2)
    }

    @Test func anExistingRecordIsAnErrorNamingTheLineUnlessReplacing() throws {
        try dir.succeed("set", store, "person/ada", "name", #""Old""#)
        let input = #"{"kind":"person","id":"grace","values":{}}"# + "\n" + #"{"kind":"person","id":"ada","values":{"name":"New"}}"#
        let before = try dir.snapshot(store)
        try dir.fail(["load", store], input: input, says: "kvstore: line 2: person/ada: a record with this id already exists; nothing was loaded")
        #expect(try dir.snapshot(store) == before)
        #expect(try dir.kvstore(["load", store, "--replace"], input: input).status == 0)
        #expect(try dir.succeed("get", store, "person/ada").stdout == #"{"name":"New"}"# + "\n")
        let changes = try dir.succeed("journal", "list", store).objects().map { $0["change"] }
        #expect(changes == ["recordInserted", "recordInserted", "recordDeleted", "recordInserted"].map(Value.string))
    }

    @Test(arguments: [
        ("{\"kind\":\"p\",\"id\":\"1\",\"values\":{}}\n{\"kind\":\"p\",\"id\":\"2\",\"values\":{\"a\":1,}}", "line 2, column 38: expected a string key"),
        ("{\"kind\":\"p\",\"id\":\"1\",\"values\":{}}\n\nnot json", "line 3, column 1"),
        (#"{"kind":"p","id":"1","values":{},"extra":1}"#, "line 1: unexpected key 'extra'"),
        (#"{"id":"1","values":{}}"#, #"line 1: no "kind""#),
        (#"{"kind":"p","id":1,"values":{}}"#, #"line 1: "id" must be a string"#),
        (#"{"kind":"p","id":"1"}"#, #"line 1: no "values""#),
        (#"{"kind":"p","id":"1","values":[1]}"#, #"line 1: "values" must be an object"#),
        (#"{"kind":"bad kind","id":"1","values":{}}"#, "line 1: invalid record reference 'bad kind"),
        (#"{"kind":"p","id":"","values":{}}"#, "line 1: "),
        ("{\"kind\":\"p\",\"id\":\"1\",\"values\":{}}\n{\"kind\":\"p\",\"id\":\"1\",\"values\":{}}", "line 2: p/1: a record with this id already exists"),
        (#"{"kind":"p","id":"1","values":{"d":{"$date":"soon"}}}"#, "line 1, column "),
    ])
    func aBadLineChangesNothingAndIsNamed(_ input: String, _ message: String) throws {
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        let before = try dir.snapshot(store)
        try dir.fail(["load", store], input: input, says: "kvstore: " + message)
        #expect(try dir.snapshot(store) == before)
        // A store the failed load would have created is not left behind.
        try dir.fail(["load", dir.path("new")], input: input, says: message)
        #expect(!FileManager.default.fileExists(atPath: dir.path("new")))
        try FileManager.default.createDirectory(atPath: dir.path("empty"), withIntermediateDirectories: false)
        try dir.fail(["load", dir.path("empty")], input: input, says: message)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path("empty")).isEmpty)
    }

    /// A failed load removes every directory it created for the new store, not only the last one.
    @Test func aFailedLoadLeavesNoParentDirectoryBehind() throws {
        try dir.fail(["load", dir.path("a/b/new")], input: "not json", says: "line 1, column 1")
        #expect(!FileManager.default.fileExists(atPath: dir.path("a")))
        // A path taken literally (a quoted "~"), relative to the working directory.
        try dir.fail(["load", "~/b//new/"], input: "not json", says: "line 1, column 1")
        #expect(!FileManager.default.fileExists(atPath: dir.path("~")))
    }

    /// With --batch, a failure before any batch committed leaves no new, empty store behind.
    @Test func aBatchedLoadThatCommittedNothingLeavesNoStoreBehind() throws {
        let input = #"{"kind":"n","id":"1","values":{}}"# + "\n{oops"
        try dir.fail(["load", dir.path("new"), "--batch", "2"], input: input, says: "0 records were loaded before it")
        #expect(!FileManager.default.fileExists(atPath: dir.path("new")))
    }

    @Test func batchesCommitOnTheirOwnAndTheErrorCountsWhatWasLoaded() throws {
        var lines = (1...7).map { #"{"kind":"n","id":"\#($0)","values":{"i":\#($0)}}"# }
        lines.insert("{oops", at: 5)
        try dir.fail(["load", store, "--batch", "2"], input: lines.joined(separator: "\n"),
                     says: "kvstore: line 6, column 2: expected a string key in object; 4 records were loaded before it (committed in batches of 2)")
        #expect(try dir.succeed("dump", store).lines.count == 4)
        #expect(Set(try dir.succeed("journal", "list", store).objects().map { $0["commit"] }).count == 2)
        lines.remove(at: 5)
        try dir.succeed("load", dir.path("whole"), "--batch", "3", dir.write(lines.joined(separator: "\n"), to: "in.jsonl"))
        #expect(try dir.succeed("dump", dir.path("whole")).lines == lines.sorted())
        #expect(Set(try dir.succeed("journal", "list", dir.path("whole")).objects().map { $0["commit"] }).count == 3)
    }
}

extension Array where Element == Value {
    /// Record objects in dump order: by kind, then id (bytewise).
    fileprivate func sortedAsDump() -> [Value] {
        func key(_ value: Value) -> [UInt8] {
            guard case .dictionary(let object) = value, case .string(let kind)? = object["kind"],
                  case .string(let id)? = object["id"] else { return [] }
            return [UInt8](kind.utf8) + [0] + [UInt8](id.utf8)
        }
        return sorted { key($0).lexicographicallyPrecedes(key($1)) }
    }
}

extension LoadTests {
    /// A line longer than `load`'s stated limit (128 MiB, in `load --help`) is one error naming the
    /// line and the limit, read in linear time, and nothing is loaded.
    @Test func aLineOverTheLimitIsRefusedNamingItAndTheLimit() throws {
        let dir = try TestDirectory()
        let store = dir.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        let path = dir.path("long.jsonl")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let head = Data(#"{"kind":"note","id":"2","values":{"text":""#.utf8), tail = Data(#""}}"#.utf8 + [10])
        try handle.write(contentsOf: Data(#"{"kind":"note","id":"1","values":{}}"#.utf8 + [10]) + head)
        let text = (128 << 20) + 1 - head.count - tail.count + 1   // the line: one byte over the limit
        for _ in 0..<(text >> 20) { try handle.write(contentsOf: Data(repeating: UInt8(ascii: "x"), count: 1 << 20)) }
        try handle.write(contentsOf: Data(repeating: UInt8(ascii: "x"), count: text % (1 << 20)) + tail)
        try handle.close()
        let before = try dir.snapshot(store)
        try dir.fail(["load", store, path], says: "line 2: longer than 128 MiB (134217728 bytes), the longest line load reads; nothing was loaded")
        #expect(try dir.snapshot(store) == before)
        #expect(try dir.succeed("load", "--help").stdout.contains("A line may be at most 128 MiB"))
    }
}
