import Foundation
import KVStore
import Testing
import TestSupport

/// `stat`: counts, sizes, map use, readers and the journal range, as text or JSON.
@Suite(.tags(.subprocess), .skippedByTag) struct StatTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        try dir.succeed("set", store, "person/ada", "age", "36")
        try dir.succeed("set", store, "person/grace", "name", #""Grace""#)
        try dir.succeed("set", store, "invoice/1", "amount", "120")
    }

    @Test func jsonHasTheCountsJournalRangeAndSizes() throws {
        let stat = try TypedJSON.dictionary(from: dir.succeed("stat", store, "--format", "json").stdout)
        #expect(stat["records"] == .dictionary(["total": 3, "kinds": .dictionary(["invoice": 1, "person": 2])]))
        #expect(stat["journal"] == .dictionary(["first": 1, "last": 4, "entries": 4, "lastCommit": 4]))
        guard case .dictionary(let storage)? = stat["storage"], case .dictionary(let databases)? = storage["databases"],
              case .dictionary(let records)? = databases["records"], case .dictionary(let meta)? = stat["store"] else {
            Issue.record("missing sections: \(stat)")
            return
        }
        let fileSize = try #require(FileManager.default.attributesOfItem(atPath: store + "/data.mdb")[.size] as? Int)
        #expect(storage["fileSize"] == .int(Int64(fileSize)))
        #expect(storage["pageSize"] == 4096 || storage["pageSize"] == 16384)
        #expect(storage["mapSize"] == .int(64 << 20))
        #expect(records["entries"] == 3)
        #expect(meta["format"] == 1)
        #expect(meta["durability"] == "full")
        #expect(meta["path"] == .string(store))
        guard case .string(let id)? = meta["id"] else { throw CancellationError() }
        #expect(UUID(uuidString: id) != nil)
        #expect(stat["readers"] == .dictionary(["max": 126, "active": []]))
    }

    @Test func tableIsLabelledLines() throws {
        let lines = try dir.succeed("stat", store).lines
        #expect(lines.first == "store        \(store)")
        #expect(lines.contains("records      3, by kind:"))
        #expect(lines.contains("  invoice    1"))
        #expect(lines.contains("  person     2"))
        #expect(lines.contains("journal      4 entries, sequences 1…4"))
        #expect(lines.contains("last commit  4"))
        #expect(lines.contains { $0.hasPrefix("  records    3 entries, depth 1, pages: 1 leaf") })
        #expect(lines.contains("readers      0 active, of 126 slots"))
        #expect(lines.contains("consumers    none"))
        #expect(lines.contains("sources      none (nothing replicated here)"))
        #expect(lines.contains("role         primary (takes local writes)"))
    }

    @Test func consumersAndReplicationSourcesAreListed() throws {
        try dir.succeed("journal", "consumers", store, "--register", "indexer", "--after", "1")
        try dir.succeed("journal", "consumers", store, "--register", "mailer")
        let copy = dir.path("copy")
        try dir.kvstore(["journal", "export", store], output: "store.stream")
        try dir.succeed("journal", "apply", copy, dir.path("store.stream"))
        let source = try TypedJSON.dictionary(from: dir.succeed("stat", store, "--format", "json").stdout)
        #expect(source["consumers"] == [
            ["name": "indexer", "cursor": 1, "lag": 3, "expired": false],
            ["name": "mailer", "cursor": 4, "lag": 0, "expired": false],
        ])
        guard case .dictionary(let identity)? = source["store"], case .string(let id)? = identity["id"] else {
            Issue.record("no store id: \(source)")
            return
        }
        let replica = try TypedJSON.dictionary(from: dir.succeed("stat", copy, "--format", "json").stdout)
        #expect(replica["replication"] == [["source": .string(id), "applied": 4, "sourceLast": 4, "lag": 0]])
        guard case .dictionary(let replicaIdentity)? = replica["store"] else { Issue.record("no store section: \(replica)"); return }
        #expect(replicaIdentity["role"] == "replica" && replicaIdentity["replicaOf"] == .string(id))
        #expect(identity["role"] == "primary" && identity["replicaOf"] == .null)
        #expect(replica["consumers"] == [])

        let lines = try dir.succeed("stat", store).lines
        #expect(lines.contains("consumers    2, cursor and lag:"))
        #expect(lines.contains("  indexer    read through 1, 3 behind"))
        #expect(lines.contains("  mailer     read through 4, 0 behind"))
        try dir.succeed("journal", "truncate", store, "--before", "3", "--force")
        #expect(try dir.succeed("stat", store).lines.contains(
            "  indexer    read through 1, 3 behind (expired: the journal was truncated past its cursor)"))
        let replicaLines = try dir.succeed("stat", copy).lines
        #expect(replicaLines.contains("  store      \(id) applied through 4, source at 4, lag 0"))
        #expect(replicaLines.contains("role         replica of \(id) (refuses local writes; kvstore promote makes it writable)"))
    }

    @Test func anEmptyJournalHasNoFirstSequence() throws {
        try dir.succeed("rm", store, "invoice/1")
        try dir.kvstore(["load", dir.path("empty")], input: "")
        let stat = try TypedJSON.dictionary(from: dir.succeed("stat", dir.path("empty"), "--format", "json").stdout)
        #expect(stat["journal"] == .dictionary(["first": .null, "last": 0, "entries": 0, "lastCommit": 0]))
        #expect(stat["records"] == .dictionary(["total": 0, "kinds": .dictionary([:])]))
        #expect(try dir.succeed("stat", dir.path("empty")).lines.contains("journal      0 entries, empty (last sequence 0)"))
    }
}
