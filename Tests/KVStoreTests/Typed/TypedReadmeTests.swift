import Foundation
import Testing
import TestSupport
import KVStore

/// The Typed models article's complete example, verbatim between the markers, so that it keeps
/// compiling and working.
@Test func readmeTypedSection() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("store")
    // EXAMPLE-TYPED-BEGIN
    struct Contact: StoredModel {
        static var kind: String { "contact" }
        var id: String
        var name: String
        var email: String?
        var tags: [String] = []
        // Swift key paths have no names at run time: bind those that typed access uses to record keys.
        static var recordKeys: [PartialKeyPath<Contact>: String] { [\.name: "name", \.email: "email"] }
    }
    let store = try Store(path: path)

    // Models are the records of their kind, addressed by id: insert, save, fetch, fetchAll, delete.
    try store.insert(Contact(id: "1", name: "Ada"))
    var ada = try #require(try store.fetch(Contact.self, id: "1"))

    // Typed keys: get, set and observe one property through its Swift key path.
    let token = try store.observe(Contact.self, id: "1", \.name, options: [.old, .new]) { change in
        print("name:", change.oldValue ?? "none", "→", change.newValue ?? "none")  // name: Ada → Ada L.
    }
    try store.set(Contact.self, id: "1", \.name, to: "Ada L.")
    try store.set(Contact.self, id: "1", \.email, to: "ada@example.com")
    #expect(try store.value(of: Contact.self, id: "1", \.email) == "ada@example.com")
    token.cancel()

    // Update from the server's version: only the keys whose values differ are written, in one
    // commit, and the change dictionary says exactly what changed.
    let server: [String: Value] = ["id": "1", "name": "Ada Lovelace", "email": "ada@example.com", "tags": ["math"]]
    let changes = try store.update(RecordRef("contact/1"), from: server)
    #expect(changes == ["name": ValueChange(old: "Ada L.", new: "Ada Lovelace"), "tags": ValueChange(old: [], new: ["math"])])
    ada.email = nil
    #expect(try store.save(ada) == [  // save: the record becomes the model (a nil optional is an absent key)
        "name": ValueChange(old: "Ada Lovelace", new: "Ada"), "email": ValueChange(old: "ada@example.com", new: nil),
        "tags": ValueChange(old: ["math"], new: [])])

    // Last writer wins: a kind that tracks per-key modification times merges another store's
    // version key by key; the later change wins, a tie goes to the greater store id.
    var notes = try Kind("note")
    notes.tracksModificationTimes = true
    try store.register(notes)
    let note = try RecordRef("note/1")
    try store.insert(["title": "Draft", "body": "…"], as: note)
    let remote = StampedRecord(values: ["title": "Final"], time: Date().addingTimeInterval(60), origin: UUID())
    #expect(try store.merge(note, from: remote) == ["title": ValueChange(old: "Draft", new: "Final")])
    // EXAMPLE-TYPED-END
}

/// The Typed models article must hold the same example as the test above.
@Test func readmeHoldsTheTestedTypedSection() throws {
    let test = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    #expect(documentedSection("EXAMPLE-TYPED", of: try packageText("Sources/KVStore/KVStore.docc/TypedModels.md")) == documentedSection("EXAMPLE-TYPED", of: test))
}
