import Foundation
import Testing
import KVStore
import TestSupport

/// A to-do as the README's models section stores it.
private struct Todo: StoredModel, Equatable {
    static let kind = "task"
    var id: String
    var name: String
    var done: Bool
    static let keyAliases = ["name": ["title"]]       // version 1 called it title
    static let defaultValues: [String: Value] = ["done": false]
}

/// The README's models section, verbatim between the markers: async access, an upsert from a
/// server's dictionary, a save that keeps another version's keys, and a migration.
@Test func readmeModels() async throws {
    let directory = try TemporaryDirectory()
    let store = try Store(path: directory.path("store"))
    try store.insert(["title": "Write the docs", "owner": "ada"], as: RecordRef("task/1"))  // version 1
    // README-MODELS-BEGIN
    // async: the closures run on the store's own threads, never on the caller's actor.
    let task = try await store.read { try $0.fetch(Todo.self, id: "1") }   // title → name, done: false
    try await store.write { txn in
        var done = try #require(task)
        done.done = true
        try txn.save(done)                            // keeps "owner", which Todo does not have
        try txn.update(RecordRef("task/2"), from: ["name": "Ship", "done": false], insertingIfAbsent: true)
    }

    // Migrations run once per store, in order, each in one transaction.
    var migrator = Migrator()
    migrator.register("v2: owners are references") { txn in
        for record in try txn.records(ofKind: "task") {
            guard case .string(let owner)? = record.values["owner"] else { continue }
            try txn.setValue(.reference(RecordRef(kind: "person", id: owner)), forKey: "owner", of: record.ref)
        }
    }
    try migrator.migrate(store)
    // README-MODELS-END
    let record = try #require(try store.record(RecordRef("task/1")))
    let ada = try RecordRef("person/ada")
    #expect(record == ["id": "1", "name": "Write the docs", "done": true, "owner": .reference(ada)])
    #expect(try store.fetch(Todo.self, id: "2") == Todo(id: "2", name: "Ship", done: false))
    #expect(try await store.read { try $0.appliedMigrations() } == ["v2: owners are references"])
}

/// The README must hold the same models section as the test above.
@Test func readmeHoldsTheTestedModels() throws {
    let test = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    #expect(documentedSection("README-MODELS", of: try readmeText()) == documentedSection("README-MODELS", of: test))
}
