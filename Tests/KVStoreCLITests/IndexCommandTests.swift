import Foundation
import KVStore
import Testing
import TestSupport

/// `kvstore index add|drop|list` end to end.
@Suite(.tags(.subprocess), .skippedByTag) struct IndexCommandTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        try dir.kvstore(["load", store], input: """
            {"kind":"item","id":"1","values":{"guid":"g1","title":"École","tags":["a","b"]}}
            {"kind":"item","id":"2","values":{"guid":"g2","title":"ecole","tags":["b"]}}
            {"kind":"note","id":"1","values":{"guid":"g1"}}
            """)
    }

    func list(_ arguments: String...) throws -> [[String: Value]] {
        try dir.succeed(["index", "list", store] + arguments).objects()
    }

    @Test func addBuildsOverTheRecordsAndListShowsIt() throws {
        let added = try dir.succeed("index", "add", store, "item", "tags")
        #expect(added.stdout.isEmpty)
        try dir.succeed("index", "add", store, "item", "guid", "--unique")
        try dir.succeed("index", "add", store, "item", "title", "--fold")
        try dir.succeed("index", "add", store, "note", "guid,title")
        #expect(try list() == [
            ["kind": "item", "index": "guid", "unique": true, "folded": false, "records": 2, "entries": 2, "unknown": 0],
            ["kind": "item", "index": "tags", "unique": false, "folded": false, "records": 2, "entries": 3, "unknown": 0],
            ["kind": "item", "index": "title", "unique": false, "folded": true, "records": 2, "entries": 2, "unknown": 0],
            ["kind": "note", "index": "guid,title", "unique": false, "folded": false, "records": 1, "entries": 1, "unknown": 0],
        ])
        #expect(try list("note").count == 1)
        let table = try dir.succeed("index", "list", store, "item", "--format", "table").stdout
        #expect(table.split(separator: "\n").first?.split(separator: " ").map(String.init) == ["KIND", "INDEX", "FLAGS", "RECORDS", "ENTRIES", "UNKNOWN"])
        #expect(table.contains("unique") && table.contains("folded"))
    }

    @Test func aUniqueIndexThatRecordsViolateIsRefusedAndNothingChanges() throws {
        try dir.succeed("set", store, "item/2", "guid", #""g1""#)
        let before = try dir.snapshot(store)
        try dir.fail(["index", "add", store, "item", "guid", "--unique"], says: "unique index item.guid refuses the write: item/1 has the same guid")
        #expect(try list().isEmpty)
        #expect(try dir.snapshot(store) == before)
    }

    @Test func badKeyPathsAndKindsAreOneLine() throws {
        try dir.fail(["index", "add", store, "item", "a..b"], says: "invalid key path 'a..b'")
        try dir.fail(["index", "add", store, "item", "lines.@sum.amount"], says: "cannot use a collection operator")
        try dir.fail(["index", "add", store, "item", "title,"], says: "the key path is empty")
        try dir.fail(["index", "add", store, "9item", "title"], says: "invalid record reference")
        try dir.fail(["index", "add", dir.path("nothing"), "item", "title"], says: "no store here")
        #expect(try list().isEmpty)
    }

    @Test func addingAnIndexTwiceIsRefused() throws {
        try dir.succeed("index", "add", store, "item", "title")
        try dir.fail(["index", "add", store, "item", "title", "--unique"], says: "kind item has the index title already; drop it first")
        try dir.succeed("index", "add", store, "item", "title", "--fold")  // another index
    }

    @Test func dropRemovesTheIndexAndItsEntries() throws {
        try dir.succeed("index", "add", store, "item", "title")
        try dir.succeed("index", "add", store, "item", "title", "--fold")
        try dir.succeed("index", "drop", store, "item", "title")
        #expect(try list().map { $0["folded"] } == [true])
        try dir.succeed("index", "drop", store, "item", "title", "--fold")
        #expect(try list().isEmpty)
        try dir.fail(["index", "drop", store, "item", "title"], says: "kind item has no index on title")
        #expect(try dir.succeed("verify", store).stdout.hasPrefix("healthy"))
    }

    @Test func listOnAStoreWithoutIndexesIsEmpty() throws {
        #expect(try dir.succeed("index", "list", store).stdout.isEmpty)
    }

    // The catalog carries the declaration to the `set`, `load`, `rm` and `verify` processes.
    @Test
    func otherProcessesKeepAnIndexAddedByTheTool() throws {
        try dir.succeed("index", "add", store, "item", "tags")
        try dir.succeed("set", store, "item/1", "tags", #"["z"]"#)
        try dir.kvstore(["load", store], input: #"{"kind":"item","id":"3","values":{"tags":["a"]}}"#)
        try dir.succeed("rm", store, "item/2")
        #expect(try dir.succeed("verify", store).stdout.hasPrefix("healthy"))
        #expect(try list() == [["kind": "item", "index": "tags", "unique": false, "folded": false, "records": 2, "entries": 2, "unknown": 0]])
    }

    // `set` knows, from the catalog, the unique index another process declared.
    @Test
    func aSetThatBreaksAUniqueIndexIsOneLine() throws {
        try dir.succeed("index", "add", store, "item", "guid", "--unique")
        try dir.fail(["set", store, "item/2", "guid", #""g1""#], says: "unique index item.guid refuses the write: item/1 has the same guid")
    }
}
