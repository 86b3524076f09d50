import Foundation
import Synchronization
import Testing
@testable import KVStore

/// `update(_:from:keys:)`: exactly the keys that differ, in one commit, nothing for equal values.
@Suite struct UpdateTests {
    let t: TemporaryStore
    var store: Store { t.store }
    let ada = ref("contact/1")

    init() throws {
        t = try TemporaryStore()
        try t.store.insert(["id": "1", "name": "Ada", "age": 36, "city": "London"], as: ada)
    }

    @Test func withoutKeysTheRecordBecomesTheOtherVersion() throws {
        let changes = try store.update(ada, from: ["id": "1", "name": "Ada Lovelace", "age": 36, "email": "ada@example.com"])
        #expect(changes == [
            "name": ValueChange(old: "Ada", new: "Ada Lovelace"),
            "email": ValueChange(old: nil, new: "ada@example.com"),
            "city": ValueChange(old: "London", new: nil),
        ])
        #expect(try store.record(ada) == ["id": "1", "name": "Ada Lovelace", "age": 36, "email": "ada@example.com"])
    }

    @Test func listedKeysOnly() throws {
        let changes = try store.update(ada, from: ["name": "Augusta", "age": 37, "email": "a@example.com"], keys: ["name", "city", "nickname"])
        // name differs; city is listed but absent in the other version: removed; nickname absent on both: nothing;
        // age and email are not listed: ignored.
        #expect(changes == ["name": ValueChange(old: "Ada", new: "Augusta"), "city": ValueChange(old: "London", new: nil)])
        #expect(try store.record(ada) == ["id": "1", "name": "Augusta", "age": 36])
    }

    @Test func nullMeansAbsent() throws {
        let changes = try store.update(ada, from: ["city": .null], keys: ["city"])
        #expect(changes == ["city": ValueChange(old: "London", new: nil)])
    }

    @Test func theWholeUpdateIsOneCommitWithOneEntryPerChangedKey() throws {
        let before = try store.journalEntries().count
        try store.update(ada, from: ["id": "1", "name": "Augusta", "age": 37, "city": "London"])
        let entries = try store.journalEntries().dropFirst(before)
        #expect(entries.map(\.keyPath) == ["age", "name"])
        #expect(Set(entries.map(\.commitID)).count == 1)
    }

    @Test func equalValuesWriteNothingAndNotifyNobody() throws {
        let notified = Mutex(0)
        let token = try store.observe(ada, keyPath: "name") { _ in notified.withLock { $0 += 1 } }
        let before = try store.journalEntries().count
        let changes = try store.update(ada, from: ["id": "1", "name": "Ada", "age": 36, "city": "London"])
        #expect(changes.isEmpty)
        #expect(try store.journalEntries().count == before)
        #expect(notified.withLock { $0 } == 0)
        token.cancel()
    }

    @Test func fromARecordOrAModel() throws {
        let other = Record(ref: ref("contact/2"), values: ["id": "1", "name": "Ada", "age": 40])
        #expect(try store.update(ada, from: other, keys: ["age"]) == ["age": ValueChange(old: 36, new: 40)])
        // From a model: its keys only; `city`, which Contact does not have, is kept.
        let model = Contact(id: "1", name: "Ada", email: nil, age: 41, address: nil)
        #expect(try store.update(ada, from: model) == ["age": ValueChange(old: 40, new: 41)])
        #expect(try store.record(ada) == ["id": "1", "name": "Ada", "age": 41, "city": "London"])
    }

    @Test func aModelOfAnotherKindIsRefusedAndChangesNothing() throws {
        let person = ref("person/1")
        try store.insert(["name": "Ada"], as: person)
        let error = try #require(throws: ModelError.self) { try store.update(person, from: Contact(id: "1", name: "Eve")) }
        #expect(error.code == .wrongKind)
        #expect(try store.record(person) == ["name": "Ada"])
    }

    @Test func errorsChangeNothing() throws {
        #expect(performing: { try store.update(ref("contact/9"), from: ["name": "X"]) }, throws: code(.recordNotFound))
        #expect(performing: { try store.update(ada, from: ["a.b": 1]) }, throws: code(.invalidKeyPath))
        try store.register(try Kind("contact", keys: ["id": .string, "name": .string, "age": .int, "city": .string]))
        let before = try store.journalEntries().count
        #expect(performing: { try store.update(ada, from: ["name": "Eve", "age": "old"], keys: ["name", "age"]) }, throws: code(.typeMismatch))
        #expect(try store.record(ada)?["name"] == "Ada")
        #expect(try store.journalEntries().count == before)
    }

    @Test func theChangeReportsTheValueStoredAfterTheKindsRules() throws {
        try store.register(try Kind("contact", keys: ["id": .string, "name": .string, "age": .double, "city": .string]))
        let changes = try store.update(ada, from: ["age": 37], keys: ["age"])
        #expect(changes == ["age": ValueChange(old: 36, new: 37.0)])
    }

    @Test func anUnknownKeyOfAClosedKindChangesNothingEvenInsideATransaction() throws {
        try store.register(try Kind("contact", keys: ["id": .string, "name": .string, "age": .int, "city": .string]))
        let before = try store.journalEntries().count
        try store.write { (txn: WriteTransaction) throws in
            // "age" sorts before "nickname": it must not be written before the error is found.
            let error = try #require(throws: KeyValueCodingError.self) {
                try txn.update(ada, from: ["age": 40, "nickname": "A"], keys: ["age", "nickname"])
            }
            #expect(error.code == .undefinedKey)
            #expect(try txn.record(ada)?["age"] == 36)
        }
        #expect(try store.journalEntries().count == before)
    }

    @Test func aKeyThatNoKeyPathCanNameChangesNothingEvenInsideATransaction() throws {
        try store.write { (txn: WriteTransaction) throws in
            #expect(performing: { try txn.update(ada, from: ["age": 40, "c.d": 1]) }, throws: code(.invalidKeyPath))
            #expect(try txn.record(ada)?["age"] == 36)
        }
    }

    @Test func aDeclaredTypeMismatchChangesNothingEvenInsideATransaction() throws {
        try store.register(try Kind("contact", keys: ["id": .string, "name": .string, "age": .int, "city": .string]))
        try store.write { (txn: WriteTransaction) throws in
            #expect(performing: { try txn.update(ada, from: ["age": 40, "name": 1], keys: ["age", "name"]) }, throws: code(.typeMismatch))
            #expect(try txn.record(ada)?["age"] == 36)
        }
    }

    @Test func aModelWithAnotherIDIsRefusedUnlessItsIDIsLeftOut() throws {
        let eve = Contact(id: "2", name: "Eve")
        let error = try #require(throws: ModelError.self) { try store.update(ada, from: eve) }
        #expect(error.description == "contact/1 id: the model's id 2 is not the record's id 1")
        #expect(try store.record(ada)?["id"] == "1")
        #expect(try store.update(ada, from: eve, keys: ["name"]) == ["name": ValueChange(old: "Ada", new: "Eve")])
    }
}
