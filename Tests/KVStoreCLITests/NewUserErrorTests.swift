import Testing
import TestSupport

/// What a new user gets wrong with `value`, `load`, `stat`, `render` (and reading a store of a
/// newer format with any command): one line on standard error, status 1, nothing changed.
/// The places are those of ``ErrorTests``; `FILE` holds the text "text", which is not jsonl.
@Suite(.tags(.subprocess), .skippedByTag) struct NewUserErrorTests {
    typealias Case = ErrorTests.Case

    static let cases: [Case] = [
        Case("value", "NOSTORE", "person", "@count", says: "NOSTORE: no store here"),
        Case("value", "FILE", "person", "@count", says: "FILE: is a file, not a store directory"),
        Case("value", "OTHERDIR", "person", "@count", says: "OTHERDIR: not a kvstore store"),
        Case("value", "NEWER", "person", "@count", says: "NEWER: the store has format 5, newer than this kvstore reads (4)"),
        Case("value", "STORE", "per son", "@count", says: "invalid record reference 'per son"),
        Case("value", "STORE", "person", "a..b", says: "invalid key path 'a..b'"),
        Case("value", "STORE", "person", "@cnt.age", says: "unknown collection operator '@cnt'"),
        Case("value", "STORE", "person", "@sum.name", says: "@sum"),
        Case("value", "STORE", "person", "name.first", says: "'name' is a string"),
        Case("dump", "NEWER", says: "NEWER: the store has format 5"),
        Case("get", "NEWER", "person/ada", says: "NEWER: the store has format 5"),
        Case("set", "NEWER", "person/ada", "age", "1", says: "NEWER: the store has format 5"),
        Case("stat", "NOSTORE", says: "NOSTORE: no store here"),
        Case("stat", "EMPTYDIR", says: "EMPTYDIR: not a kvstore store"),
        Case("stat", "OTHERDIR", says: "OTHERDIR: not a kvstore store"),
        Case("stat", "FILE", says: "FILE: is a file, not a store directory"),
        Case("stat", "NEWER", says: "NEWER: the store has format 5"),
        Case("load", "STORE", "FILE", says: "line 1, column 1: "),
        Case("load", "STORE", "NOSTORE", says: "NOSTORE: no such jsonl file"),
        Case("load", "STORE", "OTHERDIR", says: "OTHERDIR: is a directory, not a jsonl file"),
        Case("load", "FILE", "FILE", says: "FILE: is a file, not a store directory"),
        Case("load", "OTHERDIR", "FILE", says: "OTHERDIR: not a kvstore store"),
        Case("load", "NEWER", "FILE", says: "NEWER: the store has format 5"),
        Case("render", "NOSTORE", "person/ada", "--text", "[[name]]", says: "NOSTORE: no store here"),
        Case("render", "NEWER", "person/ada", "--text", "[[name]]", says: "NEWER: the store has format 5"),
        Case("render", "STORE", "person/ada", "OTHERDIR", says: "OTHERDIR: is a directory, not a template file"),
        Case("render", "STORE", "person:ada", "--text", "[[name]]", says: "invalid record reference 'person:ada'"),
        Case("render", "STORE", "person/zed", "--text", "[[name]]", says: "person/zed: no such record"),
        Case("render", "STORE", "person/ada", "--text", "[[name", says: "template line 1, column 1: '[[' is not closed"),
        Case("render", "STORE", "person/ada", "--text", "[[name.@avg.x.@bad]]", says: "unknown collection operator '@bad'"),
    ]

    @Test(arguments: cases)
    func anErrorIsOneLineAndChangesNothing(_ errorCase: Case) throws {
        try ErrorTests.check(errorCase)
    }

    @Test(arguments: [
        ["load", "STORE", "--batch", "0"],
        ["render", "STORE", "person/ada"],
        ["render", "STORE", "person/ada", "t.html", "--text", "x"],
        ["stat", "STORE", "--format", "yaml"],
        ["value", "STORE", "person"],
    ])
    func aMistakeInTheCommandLineIsAUsageError(_ arguments: [String]) throws {
        let dir = try TestDirectory()
        let store = dir.path("STORE")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        let result = try KVStoreExecutable.run(arguments.map { $0 == "STORE" ? store : $0 }, in: dir)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("kvstore: ") && result.stderr.split(separator: "\n").count == 1, "\(result)")
    }
}
