import Foundation
@testable import KVStore

/// A store with people, invoices and lines that reference one another, for evaluating predicates.
final class PredicateStore {
    let fixture: TemporaryStore
    let ada = ref("person/ada")
    let oslo = ref("person/oslo")
    let invoice = ref("invoice/1")
    let empty = ref("invoice/2")
    let counter = ref("counter/1")

    init() throws {
        fixture = try TemporaryStore(kinds: [try Kind("counter", keys: ["n": .int])])
        let store = fixture.store
        try store.insert([
            "name": "Ada", "born": 1815, "height": 1.65, "title": "ÉCOLE", "alive": false,
            "when": .date(Date(timeIntervalSinceReferenceDate: 100)),
            "address": ["city": "London", "zip": .null],
            "tags": ["math", "poetry", "Straße"],
            "scores": [90, 85.5, .null],
        ], as: ada)
        try store.insert(["name": "Olav", "city": "Oslo", "tags": []], as: oslo)
        try store.insert([
            "customer": .reference(oslo),
            "lines": [
                ["sku": "A", "qty": 2, "amount": 60, "tags": ["x", "y"]],
                ["sku": "B", "qty": 1, "amount": 45.5, "tags": ["y"]],
                ["sku": "C", "amount": 10],
            ],
            "people": [.reference(ada), .reference(oslo), .reference(ref("person/gone"))],
        ], as: invoice)
        try store.insert(["lines": [], "customer": .reference(ref("person/gone"))], as: empty)
        try store.insert(["n": 3], as: counter)
    }

    /// Whether the record satisfies the predicate written as text.
    func holds(_ text: String, _ record: RecordRef? = nil, _ variables: [String: Value] = [:]) throws -> Bool {
        let predicate = try KeyPathPredicate(text)
        return try fixture.store.read { txn in try txn.evaluate(predicate, on: record ?? ada, variables: variables) }
    }
}
