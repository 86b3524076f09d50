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

    /// The documentation's v2 (Migrations.md), which the migrator must run once only: run again
    /// on a migrated record, it removes `name`.
    static func migrator() -> Migrator {
        var migrator = Migrator()
        migrator.register("v2: rename title") { txn in
            for record in try txn.records(ofKind: "task") {
                try txn.update(record.ref, from: ["name": record.values["title"] ?? .null], keys: ["name", "title"])
            }
        }
        return migrator
    }

    /// `kvstore dump ./old | kvstore load ./new`, the copy the tool's help shows, loses the record
    /// of applied migrations: the app then runs them again on migrated records.
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
}
