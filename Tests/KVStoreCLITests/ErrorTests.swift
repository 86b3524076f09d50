import Foundation
import Testing
import TestSupport

/// Every error: one line on standard error starting `kvstore: `, exit status 1, nothing on
/// standard output, and the store as it was.
@Suite(.tags(.subprocess), .skippedByTag) struct ErrorTests {
    /// A command that fails, and a part of the message it must print.
    struct Case: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }

        init(_ arguments: String..., says message: String) {
            self.arguments = arguments
            self.message = message
        }
    }

    /// `STORE` stands for a store holding person/ada {"name":"Ada","age":36}; `NOSTORE` for a
    /// path where nothing is; `EMPTYDIR`, `OTHERDIR` and `FILE` for an empty directory, a
    /// directory with another file in it, and a file.
    static let cases: [Case] = [
        Case("get", "NOSTORE", "person/ada", says: "NOSTORE: no store here"),
        Case("dump", "NOSTORE", says: "NOSTORE: no store here"),
        Case("journal", "list", "NOSTORE", says: "NOSTORE: no store here"),
        Case("rm", "NOSTORE", "person/ada", says: "NOSTORE: no store here"),
        Case("get", "OTHERDIR", "person/ada", says: "OTHERDIR: not a kvstore store"),
        Case("dump", "EMPTYDIR", says: "EMPTYDIR: not a kvstore store"),
        Case("set", "OTHERDIR", "person/ada", "name", #""Ada""#, says: "OTHERDIR: not a kvstore store"),
        Case("get", "FILE", "person/ada", says: "FILE: is a file, not a store directory"),
        Case("set", "FILE", "person/ada", "name", #""Ada""#, says: "FILE: is a file, not a store directory"),
        Case("journal", "list", "FILE", says: "FILE: is a file"),
        Case("get", "STORE", "ada", says: "invalid record reference 'ada': a record reference is KIND/ID"),
        Case("set", "STORE", "per son/ada", "name", "1", says: "invalid record reference 'per son/ada'"),
        Case("get", "STORE", "/ada", says: "invalid record reference '/ada': the kind is empty"),
        Case("rm", "STORE", "person/", says: "the id is empty"),
        Case("get", "STORE", "person/zed", says: "person/zed: no such record"),
        Case("get", "STORE", "person/zed", "name", says: "person/zed: no such record"),
        Case("rm", "STORE", "person/zed", says: "person/zed: no such record"),
        Case("rm", "STORE", "person/zed", "name", says: "person/zed: no such record"),
        Case("set", "STORE", "person/ada", "name", #"{"a":1 "b":2}"#, says: "invalid VALUE (typed JSON expected): line 1, column 8: expected ',' or '}'"),
        Case("set", "STORE", "person/ada", "name", "[1,\n2,]", says: "line 2, column 3"),
        Case("set", "STORE", "person/ada", "name", "Ada", says: #"a string needs JSON quotes, e.g. '"Ada"'"#),
        Case("set", "STORE", "person/ada", "born", #"{"$date":"yesterday"}"#, says: "invalid VALUE"),
        Case("get", "STORE", "person/ada", "a..b", says: "invalid key path 'a..b'"),
        Case("get", "STORE", "person/ada", "tags.@cnt", says: "unknown collection operator '@cnt'"),
        Case("set", "STORE", "person/ada", "name.", "1", says: "invalid key path 'name.'"),
        Case("set", "STORE", "person/ada", "@count", "1", says: "invalid key path '@count'"),
        Case("rm", "STORE", "person/ada", "tags.@count", says: "invalid key path 'tags.@count'"),
        Case("set", "STORE", "person/zed", "address.city", #""Paris""#, says: "person/zed: no such record"),
        Case("set", "NOSTORE", "person/ada", "address.city", #""Paris""#, says: "person/ada: no such record"),
        Case("set", "NOSTORE", "person/ada", "name", "null", says: "person/ada: no such record (setting null creates nothing)"),
        Case("set", "STORE", "person/zed", "name", "null", says: "person/zed: no such record (setting null creates nothing)"),
        Case("set", "STORE", "person/ada", "address.city", #""Paris""#, says: "there is no dictionary at 'address'"),
        Case("set", "STORE", "person/ada", "age", "null", says: "person/ada: cannot set nil for scalar key 'age'"),
        Case("set", "STORE", "person/ada", "name.first", #""A""#, says: "'name' is a string, not a dictionary or record"),
        Case("dump", "STORE", "--kind", "no kind", says: "invalid record reference 'no kind'"),
        Case("demo", "STORE", says: "STORE: already holds a store"),
        Case("demo", "OTHERDIR", says: "OTHERDIR: the directory is not empty"),
        Case("demo", "FILE", says: "FILE: is a file"),
    ]

    @Test(arguments: cases)
    func anErrorIsOneLineAndChangesNothing(_ errorCase: Case) throws {
        try Self.check(errorCase)
    }

    /// Runs `errorCase` against the places, and checks it fails in one line, changing nothing.
    /// `NEWER` stands for a store of a newer format.
    static func check(_ errorCase: Case) throws {
        let dir = try TestDirectory()
        let places = ["STORE", "NOSTORE", "EMPTYDIR", "OTHERDIR", "FILE", "NEWER"]
        let store = dir.path("STORE")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        try dir.succeed("set", store, "person/ada", "age", "36")
        if errorCase.arguments.contains("NEWER") {
            try dir.succeed("set", dir.path("NEWER"), "person/ada", "name", #""Ada""#)
            try dir.setFormatVersion(5, of: dir.path("NEWER"))
        }
        try FileManager.default.createDirectory(atPath: dir.path("EMPTYDIR"), withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: dir.path("OTHERDIR"), withIntermediateDirectories: false)
        try Data("notes".utf8).write(to: URL(fileURLWithPath: dir.path("OTHERDIR/notes.txt")))
        try Data("text".utf8).write(to: URL(fileURLWithPath: dir.path("FILE")))
        let before = try dir.snapshot(store)
        let listing = { places.map { try? FileManager.default.contentsOfDirectory(atPath: dir.path($0)).sorted() } }

        let listed = listing()
        let arguments = errorCase.arguments.map { places.contains($0) ? dir.path($0) : $0 }
        let result = try KVStoreExecutable.run(arguments, in: dir)

        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("kvstore: "), "\(result)")
        #expect(result.stderr.hasSuffix("\n") && result.stderr.filter { $0 == "\n" }.count == 1, "\(result)")
        var expected = errorCase.message
        if let place = places.first(where: { expected.hasPrefix($0 + ":") }) {
            expected = dir.path(place) + expected.dropFirst(place.count)
        }
        #expect(result.stderr.contains(expected), "\(result)")
        #expect(try dir.snapshot(store) == before)
        #expect(listing() == listed)
        #expect(!FileManager.default.fileExists(atPath: dir.path("NOSTORE")))
    }

    @Test(arguments: [
        ["dump", "STORE", "--format", "xml"],
        ["journal", "list", "STORE", "--limit", "many"],
        ["journal", "list", "STORE", "--limit=-1"],
        ["get", "STORE"],
        ["set", "STORE", "person/ada", "n", "-x"],  // a negative number is a VALUE; this is an option
        ["frobnicate"],
    ])
    func aMistakeInTheCommandLineIsAUsageError(_ arguments: [String]) throws {
        let dir = try TestDirectory()
        let store = dir.path("STORE")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        let before = try dir.snapshot(store)
        let result = try KVStoreExecutable.run(arguments.map { $0 == "STORE" ? store : $0 }, in: dir)
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("kvstore: ") && result.stderr.hasSuffix(" --help')\n"), "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result)")
        #expect(try dir.snapshot(store) == before)
    }
}
