import Foundation
import KVStore
import LMDB
import Testing
import TestSupport

/// Review of issue 17 item 4: the record of applied migrations through the tool.
@Suite(.tags(.subprocess), .skippedByTag) struct MigrationCommandReviewTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        try dir.succeed("set", store, "task/1", "title", #""Write""#)
    }

    /// The first form of the documentation's v2 (Migrations.md), which the migrator must run once
    /// only: run again on a migrated record, it removes `name`.
    static func migrator() -> Migrator {
        var migrator = Migrator()
        migrator.register("v2: rename title") { txn in
            for record in try txn.records(ofKind: "task") {
                try txn.update(record.ref, from: ["name": record.values["title"] ?? .null], keys: ["name", "title"])
            }
        }
        return migrator
    }

    /// `kvstore dump ./old | kvstore load ./new`, the copy the tool's help shows, lost the record
    /// of applied migrations: the app then ran them again on migrated records. The dump now
    /// starts with them, and load records them.
    @Test func aDumpLoadedIntoANewStoreKeepsItsMigrationsApplied() throws {
        try Self.migrator().migrate(Store(path: store))
        let dump = try dir.succeed("dump", store).stdout
        let copy = dir.path("copy")
        let loaded = try dir.kvstore(["load", copy], input: dump)
        #expect(loaded.status == 0, "\(loaded)")
        let copied = try Store(path: copy)
        #expect(try copied.read { try $0.appliedMigrations() } == ["v2: rename title"])
        try Self.migrator().migrate(copied)
        #expect(try copied.record(RecordRef("task/1")) == ["name": "Write"])
    }

    /// `kvstore kind` prints the applied migrations' names as the store holds them: a control
    /// character in one would reach the terminal, a line break would split the line. (A migrator
    /// refuses such names; a store may still hold one, from a journal applied or a damaged file:
    /// here the bytes of a recorded name are changed.)
    @Test func kindPrintsEachMigrationNameOnItsOneLineEscaped() throws {
        var migrator = Migrator()
        migrator.register("v2ab[31mred") { _ in }
        try migrator.migrate(Store(path: store))
        let environment = try Environment.open(path: store)
        try environment.write { txn in
            let meta = try txn.openDatabase("meta", create: false)
            let key = Array("catalog/kvstore.migrations".utf8)
            var value = try #require(try txn.withValue(forKey: key, in: meta) { $0.map(Array.init) })
            let at = try #require(value.indices.first { value[$0...].starts(with: Array("ab[".utf8)) })
            value.replaceSubrange(at..<at + 2, with: [0x0A, 0x1B])
            try txn.put(key, value, in: meta)
            try txn.put(Array("catalog-version".utf8), Array(repeating: 7, count: 16), in: meta)
        }
        let output = try dir.succeed("kind", store).stdout
        #expect(!output.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(output)")
        #expect(output.split(separator: "\n").count == 2, "\(output)")
    }

    /// The migrations line is recorded only where it cannot hide an unmigrated record: a store
    /// with other migrations applied, or with records and none applied, refuses the load whole.
    @Test func loadRefusesMigrationsThatDoNotMatchTheStore() throws {
        try Self.migrator().migrate(Store(path: store))
        let dump = try dir.succeed("dump", store).stdout
        #expect(dump.hasPrefix(#"{"migrations":["v2: rename title"]}"# + "\n"), "\(dump)")

        let unmigrated = dir.path("unmigrated")
        try dir.succeed("set", unmigrated, "task/9", "title", #""Old""#)
        let refused = try dir.kvstore(["load", unmigrated], input: dump)
        #expect(refused.status == 1 && refused.stderr.split(separator: "\n").count == 1, "\(refused)")
        #expect(refused.stderr.contains("line 1:") && refused.stderr.contains("holds records none was applied to"), "\(refused)")
        #expect(try Store(path: unmigrated).record(RecordRef("task/1")) == nil)

        let other = dir.path("other")
        var v9 = Migrator()
        v9.register("v9") { _ in }
        try v9.migrate(Store(path: other))
        let otherRefused = try dir.kvstore(["load", other], input: dump)
        #expect(otherRefused.status == 1 && otherRefused.stderr.contains("and this store has v9"), "\(otherRefused)")

        let again = dir.path("again")
        #expect(try dir.kvstore(["load", again], input: dump).status == 0)
        let replaced = try dir.kvstore(["load", again, "--replace"], input: dump)   // the same migrations: nothing to record
        #expect(replaced.status == 0, "\(replaced)")
        #expect(try Store(path: again).read { try $0.appliedMigrations() } == ["v2: rename title"])

        let misplaced = try dir.kvstore(["load", dir.path("misplaced")], input: #"{"kind":"a","id":"1","values":{}}"# + "\n" + #"{"migrations":["v2"]}"#)
        #expect(misplaced.status == 1 && misplaced.stderr.contains("line 2:") && misplaced.stderr.contains("comes before every record"), "\(misplaced)")
        let malformed = try dir.kvstore(["load", dir.path("malformed")], input: #"{"migrations":"v2"}"#)
        #expect(malformed.status == 1 && malformed.stderr.contains("a list of names"), "\(malformed)")
    }
}
