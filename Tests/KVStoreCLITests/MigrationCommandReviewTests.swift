import Foundation
import KVStore
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

    /// `kvstore kind` prints the applied migrations' names as the app gave them: a control
    /// character in one reaches the terminal, a line break splits the line.
    @Test func kindPrintsEachMigrationNameOnItsOneLineEscaped() throws {
        var migrator = Migrator()
        migrator.register("v2\n\u{1B}[31mred") { _ in }
        try migrator.migrate(Store(path: store))
        let output = try dir.succeed("kind", store).stdout
        #expect(!output.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(output)")
        #expect(output.split(separator: "\n").count == 2, "\(output)")
    }
}
