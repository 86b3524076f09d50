import KVStore
import Testing
import TestSupport

/// `journal list`: entries as typed JSON lines or a table, from `--since`, up to `--limit`.
@Suite(.tags(.subprocess), .skippedByTag) struct JournalListTests {
    let dir: TestDirectory
    let store: String

    /// Five entries: an insert, a setting, a nested setting, a removal and a record deletion.
    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        try dir.succeed("set", store, "person/ada", "address", #"{"city":"London"}"#)
        try dir.succeed("set", store, "person/ada", "address.city", #""Paris""#)
        try dir.succeed("rm", store, "person/ada", "name")
        try dir.succeed("rm", store, "person/ada")
    }

    @Test func jsonlHasEachEntrysDictionaryOnOneLine() throws {
        let entries = try dir.succeed("journal", "list", store).objects()
        try #require(entries.count == 5)
        #expect(entries.map { $0["sequence"] } == [1, 2, 3, 4, 5])
        #expect(entries.map { $0["commit"] } == [1, 2, 3, 4, 5])
        #expect(entries.allSatisfy { $0["ref"] == .reference(try! RecordRef("person/ada")) })
        #expect(entries.allSatisfy { $0["timestamp"]?.dateValue != nil })
        #expect(entries.map { $0["change"] } == ["recordInserted", "setting", "setting", "setting", "recordDeleted"])
        #expect(entries.map { $0["keyPath"] } == [nil, "address", "address.city", "name", nil])
        #expect(entries.map { $0["old"] } == [nil, nil, "London", "Ada", ["address": ["city": "Paris"]]])
        #expect(entries.map { $0["new"] } == [["name": "Ada"], ["city": "London"], "Paris", nil, nil])
        let first = try dir.succeed("journal", "list", store, "--limit", "1").lines
        #expect(first == [TypedJSON.string(from: .dictionary(entries[0]))])
    }

    @Test func sinceStartsAtASequenceAndLimitStopsAfterSomeEntries() throws {
        func sequences(_ arguments: String...) throws -> [Value?] {
            try KVStoreExecutable.run(["journal", "list", store] + arguments, in: dir).objects().map { $0["sequence"] }
        }
        #expect(try sequences("--since", "3") == [3, 4, 5])
        #expect(try sequences("--limit", "2") == [1, 2])
        #expect(try sequences("--since", "2", "--limit", "2") == [2, 3])
        #expect(try sequences("--since", "9") == [])
        #expect(try sequences("--limit", "0") == [])
    }

    @Test func tableHasTheColumnsOfEachEntry() throws {
        let table = try dir.succeed("journal", "list", store, "--format", "table", "--since", "2", "--limit", "3")
        try #require(table.lines.count == 4)
        let rows = table.lines.map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(rows[0] == ["SEQ", "COMMIT", "TIME", "REF", "KEYPATH", "CHANGE", "OLD", "NEW"])
        let withoutTime = rows.dropFirst().map { row in row.enumerated().filter { $0.offset != 2 }.map(\.element) }
        #expect(withoutTime == [
            ["2", "2", "person/ada", "address", "setting", "-", #"{"city":"London"}"#],
            ["3", "3", "person/ada", "address.city", "setting", #""London""#, #""Paris""#],
            ["4", "4", "person/ada", "name", "setting", #""Ada""#, "-"],
        ])
        #expect(rows.dropFirst().allSatisfy { $0[2].hasSuffix("Z") && $0[2].contains("T") })
        func column(of text: String, in line: String) -> Int? {
            line.range(of: text).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
        }
        let refColumn = column(of: "REF", in: table.lines[0])
        #expect(table.lines.dropFirst().allSatisfy { column(of: " person/ada ", in: $0).map { $0 + 1 } == refColumn })
    }
}

/// A listing longer than one read transaction's chunk of entries.
@Suite(.tags(.subprocess), .skippedByTag) struct LongJournalListTests {
    @Test func aListingAcrossSeveralChunksHasEveryEntryOnceInOrder() throws {
        let dir = try TestDirectory()
        let store = dir.path("store")
        try dir.withStore("store") { store in
            try store.write { txn in
                for i in 0..<5_000 { try txn.insert(["n": .int(Int64(i))], as: RecordRef(kind: "n", id: String(i))) }
            }
        }
        let all = try dir.succeed("journal", "list", store).objects().map { $0["sequence"] }
        #expect(all == (1...5_000).map { .int(Int64($0)) })
        let some = try dir.succeed("journal", "list", store, "--since", "10", "--limit", "4500").objects().map { $0["sequence"] }
        #expect(some == (10..<4_510).map { .int(Int64($0)) })
    }
}
