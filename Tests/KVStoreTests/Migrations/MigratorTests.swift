import Foundation
import Synchronization
import Testing
@testable import KVStore
import TestSupport

/// The names of the migrations that ran, in order.
final class Runs: Sendable {
    private let list = Mutex<[String]>([])
    var names: [String] { list.withLock { $0 } }
    func append(_ name: String) { list.withLock { $0.append(name) } }
}

/// `Migrator`: migrations run once, in order, each in one transaction with its record.
@Suite struct MigratorTests {
    let t: TemporaryStore
    var store: Store { t.store }

    /// Two tasks as version 1 of the app wrote them: `title`, `done`, no priority.
    init() throws {
        t = try TemporaryStore()
        try t.store.insert(["id": "1", "title": "Write", "done": false], as: ref("task/1"))
        try t.store.insert(["id": "2", "title": "Ship", "done": true], as: ref("task/2"))
    }

    /// v2: renames `title` to `name`.
    static func renameTitle(_ txn: WriteTransaction) throws {
        for record in try txn.records(ofKind: "task") {
            _ = try txn.update(record.ref, from: ["name": record.values["title"] ?? .null], keys: ["name", "title"])
        }
    }

    /// v2 renames `title` to `name`; v3 gives each task a priority from `done`.
    static func migrator(counting runs: Runs? = nil) -> Migrator {
        var migrator = Migrator()
        migrator.register("v2") { txn in
            runs?.append("v2")
            try renameTitle(txn)
        }
        migrator.register("v3") { txn in
            runs?.append("v3")
            for record in try txn.records(ofKind: "task") {
                try txn.setValue(record.values["done"] == true ? 0 : 5, forKey: "priority", of: record.ref)
            }
        }
        return migrator
    }

    @Test func version1RecordsAreMigratedThroughVersions2And3() throws {
        #expect(try Self.migrator().pendingMigrations(in: store) == ["v2", "v3"])
        #expect(try Self.migrator().migrate(store) == ["v2", "v3"])
        #expect(try store.fetchAll(TaskV3.self) == [
            TaskV3(id: "1", name: "Write", priority: 5, done: false), TaskV3(id: "2", name: "Ship", priority: 0, done: true),
        ])
        #expect(try store.record(ref("task/1")) == ["id": "1", "name": "Write", "done": false, "priority": 5])
        #expect(try store.read { try $0.appliedMigrations() } == ["v2", "v3"])
        // Each migration is one commit, with the catalog entry that records it.
        let entries = try store.journalEntries().filter { $0.change == .kindDeclared }
        #expect(entries.map(\.ref) == [ref("kvstore.migrations/*"), ref("kvstore.migrations/*")])
        #expect(entries.last?.newValue == ["format": 2, "migrations": ["v2", "v3"]])
        let commits = Dictionary(grouping: try store.journalEntries(), by: \.commitID)
        #expect(commits.values.filter { $0.contains { $0.change == .kindDeclared } }.map(\.count).sorted() == [3, 5])
    }

    @Test func aStoreAtVersion2RunsOnlyVersion3() throws {
        var v2Only = Migrator()
        v2Only.register("v2", Self.renameTitle)
        try v2Only.migrate(store)
        let runs = Runs()
        #expect(try Self.migrator(counting: runs).migrate(store) == ["v3"])
        #expect(runs.names == ["v3"])
    }

    @Test func runningAgainIsANoOpThatWritesNothing() throws {
        try Self.migrator().migrate(store)
        let before = try store.journalEntries().count
        let runs = Runs()
        #expect(try Self.migrator(counting: runs).migrate(store).isEmpty)
        #expect(runs.names.isEmpty)
        #expect(try store.journalEntries().count == before)
        // Up to date, a read-only store migrates too: there is nothing to write.
        var options = Store.Options.testing
        options.readOnly = true
        #expect(try Self.migrator().migrate(Store(path: t.path, options: options)).isEmpty)
    }

    @Test func aPendingMigrationOnAReadOnlyStoreIsReadOnly() throws {
        var options = Store.Options.testing
        options.readOnly = true
        let error = try #require(throws: StoreError.self) { try Self.migrator().migrate(Store(path: t.path, options: options)) }
        #expect(error.code == .readOnly)
    }

    struct Refusal: Error, CustomStringConvertible { var description: String { "no priorities today" } }

    @Test func aFailingMigrationRollsBackAndLaterOnesDoNotRun() throws {
        let runs = Runs()
        var migrator = Migrator()
        migrator.register("v2", Self.renameTitle)
        migrator.register("v3") { txn in
            try txn.setValue(1, forKey: "priority", of: ref("task/1"))
            throw Refusal()
        }
        migrator.register("v4") { _ in runs.append("v4") }
        let before = try store.journalEntries().count
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(store) }
        #expect(error.code == .migrationFailed && error.migrations == ["v3"] && error.underlying is Refusal)
        #expect(error.description == "\(t.path): migration 'v3' failed, and nothing of it was written: no priorities today")
        #expect(runs.names.isEmpty)
        #expect(try store.read { try $0.appliedMigrations() } == ["v2"])
        #expect(try store.record(ref("task/1")) == ["id": "1", "name": "Write", "done": false])
        #expect(try store.journalEntries().count == before + 5)  // v2's commit only
    }

    @Test func aMigrationTheAppDoesNotKnowIsRefused() throws {
        var newer = Self.migrator()
        newer.register("v4") { _ in }
        try newer.migrate(store)
        let before = try store.journalEntries().count
        let error = try #require(throws: MigrationError.self) { try Self.migrator().migrate(store) }
        #expect(error.code == .unknownMigrations && error.migrations == ["v4"])
        #expect(error.description == "\(t.path): the store has migrations this app does not know: v4 (a newer version of the app ran them); open it with that version")
        #expect(throws: MigrationError.self) { try Self.migrator().pendingMigrations(in: store) }
        #expect(try store.journalEntries().count == before)
    }

    @Test func twoMigrationsOfOneNameOrAnEmptyNameAreRefused() throws {
        var twice = Self.migrator()
        twice.register("v2") { _ in }
        let error = try #require(throws: MigrationError.self) { try twice.migrate(store) }
        #expect(error.code == .invalidName && error.message == "two migrations are registered as 'v2'")
        var empty = Migrator()
        empty.register("") { _ in }
        #expect(throws: MigrationError.self) { try empty.migrate(store) }
        #expect(try store.read { try $0.appliedMigrations() }.isEmpty)
    }

    /// Another writer (another process, here another store object) reads the store while v2 runs
    /// uncommitted, so it too finds v2 pending: the check inside its write transaction skips it.
    @Test func aMigrationAnotherWriterRanMeanwhileIsNotRunAgain() throws {
        let runs = Runs()
        let other = try Store(path: t.path, options: .testing)
        let plain = Self.migrator(counting: runs)
        let otherDone = DispatchGroup()
        var first = Migrator()
        first.register("v2") { txn in
            runs.append("v2")
            otherDone.enter()
            DispatchQueue.global().async {
                #expect(throws: Never.self) { try plain.migrate(other) }
                otherDone.leave()
            }
            Thread.sleep(forTimeInterval: 0.3)  // the other writer reads now, then waits for this write
            try Self.renameTitle(txn)
        }
        first.register("v3") { _ in runs.append("v3") }
        try first.migrate(store)
        otherDone.wait()
        #expect(runs.names == ["v2", "v3"])
        #expect(try store.read { try $0.appliedMigrations() } == ["v2", "v3"])
    }

    @Test func replicasReplaysAndJournalApplyCarryTheRecord() throws {
        try Self.migrator().migrate(store)
        let replayed = try TemporaryStore()
        try store.replayJournal(into: replayed.store)
        #expect(try replayed.store.read { try $0.appliedMigrations() } == ["v2", "v3"])
        let applied = try TemporaryStore()
        try apply(exported(store), to: applied.store)
        #expect(try applied.store.read { try $0.appliedMigrations() } == ["v2", "v3"])
        #expect(try Self.migrator().migrate(applied.store).isEmpty)
        #expect(try store.verify().isHealthy)
        // The record is no kind: the catalog lists none.
        #expect(try store.read { try $0.declaredKinds() }.isEmpty)
    }

    @Test func aReplicaGetsItsMigrationsFromItsSourceAndRunsNone() throws {
        try Self.migrator().migrate(store)
        let directory = try TemporaryDirectory()
        try Replicator(source: store, replicaPath: directory.path("replica"), options: .testing).run()
        let replica = try Store(path: directory.path("replica"), options: .testing)
        #expect(try replica.read { try $0.appliedMigrations() } == ["v2", "v3"])
        #expect(try Self.migrator().migrate(replica).isEmpty)
        var newer = Self.migrator()
        newer.register("v4") { _ in }
        let error = try #require(throws: StoreError.self) { try newer.migrate(replica) }
        #expect(error.code == .replica)
        #expect(try replica.read { try $0.appliedMigrations() } == ["v2", "v3"])
    }

    @Test func theReservedKindCannotBeDeclared() throws {
        let error = try #require(throws: StoreError.self) { try store.register(try Kind("kvstore.migrations", keys: [:])) }
        #expect(error.code == .kindRefused)
    }

    @Test func aDamagedRecordOfMigrationsIsCorruptAndVerifySaysSo() throws {
        try store.environment.write { txn in
            try txn.put(StoreLayout.MetaKey.catalog("kvstore.migrations"), [2, 0xFF], in: store.databases.meta)
            try txn.put(StoreLayout.MetaKey.catalogVersion, withUnsafeBytes(of: UUID().uuid, Array.init), in: store.databases.meta)
        }
        let error = try #require(throws: StoreError.self) { try Self.migrator().migrate(store) }
        #expect(error.code == .corrupt && error.message.contains("kind 'kvstore.migrations'"))
        #expect(try !store.verify().isHealthy)
    }
}
