import Foundation
import Testing
import TestSupport
import KVStore

/// The Observation article's complete example, verbatim between the markers, so that it keeps
/// compiling and working.
@Test func readmeObservationSection() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("store")
    // EXAMPLE-OBSERVATION-BEGIN
    let store = try Store(path: path)
    let ada = try RecordRef("person/ada"), invoice = try RecordRef("invoice/1")
    try store.insert(["name": "Ada"], as: ada)
    try store.insert(["amount": 120, "customer": .reference(ada)], as: invoice)

    // A key path (here through a reference): the callback runs after each commit that changes it,
    // on the writing thread, before the write returns. Keep the token: releasing it stops observing.
    let token = try store.observe(invoice, keyPath: "customer.name", options: [.old, .new]) { change in
        print("customer.name:", change.oldValue ?? "none", "→", change.newValue ?? "none")  // "Ada" → "Ada Lovelace"
    }
    try store.setValue("Ada Lovelace", forKey: "name", of: ada)
    token.cancel()

    // Dependent keys: a derived key (computed by valueForUndefinedKey) notifies when an input changes.
    var person = try Kind("person")
    person.valueForUndefinedKey = { key, ref, txn in
        key == "greeting" ? .string("Hello, " + (try txn.value(forKey: "name", of: ref)?.stringValue ?? "")) : nil
    }
    person.keyPathsAffecting["greeting"] = ["name"]
    try store.register(person)

    // Kinds: per commit, the ids inserted, deleted and modified.
    let invoices = try store.observeKind("invoice") { changes in print("new invoices:", changes.inserted.sorted()) }
    try store.insert(["amount": 80, "customer": .reference(ada)], as: RecordRef("invoice/2"))  // new invoices: ["2"]

    // Swift concurrency: an AsyncSequence of changes; cancelling the task ends it.
    let greetings = try store.changes(of: ada, keyPath: "greeting")
    try store.setValue("Augusta Ada", forKey: "name", of: ada)
    for await change in greetings {
        #expect(change.newValue == "Hello, Augusta Ada")
        break
    }

    // Bindings: a record's key path, mapped, to an object's property (the object is held weakly).
    let title = Property("")
    try store.from(ada, "name").map { "Dear \($0?.stringValue ?? "reader")" }.to(title, \.value)
    try store.setValue("Ada", forKey: "name", of: ada)
    #expect(title.value == "Dear Ada")
    // EXAMPLE-OBSERVATION-END
    invoices.cancel()
}

/// The Observation article must hold the same example as the test above.
@Test func readmeHoldsTheTestedObservationSection() throws {
    let test = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    #expect(documentedSection("EXAMPLE-OBSERVATION", of: try packageText("Sources/KVStore/KVStore.docc/Observation.md")) == documentedSection("EXAMPLE-OBSERVATION", of: test))
}
