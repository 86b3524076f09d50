import Foundation
import KVStore
import Testing
import TestSupport

/// The command line writes names (keys, key paths, ids) in NFC, like the library: the two
/// spellings of `café` are one key and one record through `set`, `load`, `rm` and `value`.
@Suite(.tags(.subprocess), .skippedByTag) struct UnicodeNameCommandTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
    }

    /// Compared as bytes: Swift's `==` would call the two spellings equal.
    private func expectBytes(_ text: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(Array(text.utf8) == Array(expected.utf8), "\(text.debugDescription)", sourceLocation: sourceLocation)
    }

    @Test func setWithBothSpellingsOfAKeyKeepsOneKey() throws {
        try dir.succeed("set", store, "place/1", Self.composed, "1")
        try dir.succeed("set", store, "place/1", Self.decomposed, "2")
        expectBytes(try dir.succeed("get", store, "place/1").stdout, "{\"\(Self.composed)\":2}\n")
        try dir.succeed("verify", store)
        try dir.succeed("rm", store, "place/1", Self.decomposed)
        expectBytes(try dir.succeed("get", store, "place/1").stdout, "{}\n")
    }

    @Test func idsWithBothSpellingsNameOneRecord() throws {
        try dir.succeed("set", store, "place/\(Self.decomposed)", "n", "1")
        expectBytes(try dir.succeed("get", store, "place/\(Self.composed)", "n").stdout, "1\n")
        let dump = try dir.succeed("dump", store).stdout
        #expect(dump.contains("\"id\":\"\(Self.composed)\"") && !Array(dump.utf8).containsBytes(Array(Self.decomposed.utf8)))
    }

    @Test func loadWithBothSpellingsNestedAndOnTop() throws {
        let lines = """
            {"kind":"place","id":"\(Self.decomposed)","values":{"\(Self.decomposed)":1,"a":{"\(Self.decomposed)":{"x":1}}}}

            """
        #expect(try dir.kvstore(["load", store, "-"], input: lines).status == 0)
        expectBytes(try dir.succeed("get", store, "place/\(Self.composed)").stdout,
                    "{\"a\":{\"\(Self.composed)\":{\"x\":1}},\"\(Self.composed)\":1}\n")
        try dir.succeed("set", store, "place/\(Self.composed)", "a.\(Self.composed).x", "2")
        expectBytes(try dir.succeed("value", store, "place", "a.\(Self.decomposed).x").stdout, "[2]\n")
        try dir.succeed("verify", store)
    }

    /// One JSON object naming both spellings names one key twice: a duplicate, refused.
    @Test func bothSpellingsInOneObjectAreADuplicate() throws {
        try dir.fail(["load", store, "-"],
                     input: "{\"kind\":\"place\",\"id\":\"1\",\"values\":{\"\(Self.composed)\":1,\"\(Self.decomposed)\":2}}\n",
                     says: "duplicate key")
    }
}

private extension Array where Element == UInt8 {
    func containsBytes(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0 ... count - needle.count).contains { self[$0 ..< $0 + needle.count].elementsEqual(needle) }
    }
}
