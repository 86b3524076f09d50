import Foundation
import Testing
import KVStore
import TestSupport

/// The README's API tour, verbatim between the markers, so that it keeps compiling and working.
@Test func readmeTour() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("store")
    // README-TOUR-BEGIN
    // Open (or create) a store: a directory holding one LMDB environment.
    let store = try Store(path: path)

    // Records are typed dictionaries grouped by kind, addressed as kind/id.
    let ada = try RecordRef("person/ada")
    try store.insert(["name": "Ada", "born": 1815, "address": ["city": "London"], "tags": ["poet"]], as: ada)
    let invoice = try store.insert(["amount": 120, "customer": .reference(ada)], kind: "invoice")  // generated id

    // Key-value coding: keys, key paths (through dictionaries and references), collection operators.
    try store.setValue("Ada Lovelace", forKey: "name", of: ada)
    try store.setValue("Marylebone", forKeyPath: "address.district", of: ada)
    #expect(try store.value(forKeyPath: "customer.name", of: invoice) == "Ada Lovelace")
    #expect(try store.value(forKeyPath: "@sum.amount", ofKind: "invoice") == 120)

    // Kinds carry the KVC hooks: nil for a scalar, undefined keys, declared types, validation.
    var person = try Kind("person")
    person.setNilValueForKey = { _, _ in .int(0) }             // nil on a scalar stores 0
    person.validators["name"] = { value, _, _ in             // sanitise: trim
        if case .string(let s)? = value { value = .string(s.trimmingCharacters(in: .whitespaces)) }
    }
    try store.register(person)
    try store.setValue(nil, forKey: "born", of: ada)
    #expect(try store.value(forKey: "born", of: ada) == 0)

    // A write transaction commits many changes at once, under one commit id.
    try store.write { txn in
        try txn.validatingSetValue("  Augusta Ada ", forKey: "name", of: ada)
        try txn.mutableArray(forKey: "tags", of: ada).append("mathematician")  // an index-level change
    }

    // Every change is in the journal, in the same LMDB transaction as the data.
    let last = try #require(try store.journalEntries().last)
    #expect(last.change == .insertion && last.keyPath == "tags" && last.indexes == [1])
    print(TypedJSON.string(from: last.dictionary))
    // README-TOUR-END
    #expect(try store.value(forKey: "name", of: ada) == "Augusta Ada")
}

/// The README must hold the same tour as the test above.
@Test func readmeHoldsTheTestedTour() throws {
    let test = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    let readme = try readmeText()
    #expect(documentedSection("README-TOUR", of: readme) == documentedSection("README-TOUR", of: test))
}

/// The lines between `<marker>-BEGIN` and `<marker>-END` in `text`, trimmed: a piece of code
/// that a document shows and a test runs.
func documentedSection(_ marker: String, of text: String) -> String {
    let lines = text.components(separatedBy: "\n")
    guard let begin = lines.firstIndex(where: { $0.contains("\(marker)-BEGIN") }),
          let end = lines.firstIndex(where: { $0.contains("\(marker)-END") }) else { return "<missing>" }
    return lines[(begin + 1)..<end].map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
}

/// The README's text, next to the package.
func readmeText() throws -> String {
    try packageText("README.md")
}

/// The text of the package's file at `relativePath`, e.g. an article of the DocC catalog.
func packageText(_ relativePath: String) throws -> String {
    try String(contentsOf: packageRoot.appendingPathComponent(relativePath), encoding: .utf8)
}
