import Foundation
import Testing
@testable import KVStore

/// Upserts (`update(_:from:keys:insertingIfAbsent:)`) and saves that keep the keys a model does
/// not have.
@Suite struct SaveAndUpsertTests {
    let t: TemporaryStore
    var store: Store { t.store }
    let ada = ref("contact/1")

    init() throws { t = try TemporaryStore() }

    private func entryCount() throws -> Int { try store.journalEntries().count }

    @Test func anUpsertInsertsThenUpdatesThenWritesNothing() throws {
        let inserted = try store.update(ada, from: ["id": "1", "name": "Ada", "age": 36], insertingIfAbsent: true)
        #expect(inserted == ["id": ValueChange(old: nil, new: "1"), "name": ValueChange(old: nil, new: "Ada"), "age": ValueChange(old: nil, new: 36)])
        #expect(try store.journalEntries().map(\.change) == [.recordInserted])
        let updated = try store.update(ada, from: ["id": "1", "name": "Ada", "age": 37], insertingIfAbsent: true)
        #expect(updated == ["age": ValueChange(old: 36, new: 37)])
        let before = try entryCount()
        #expect(try store.update(ada, from: ["id": "1", "name": "Ada", "age": 37], insertingIfAbsent: true).isEmpty)
        #expect(try entryCount() == before)
    }

    @Test func anUpsertWithKeysInsertsOnlyThoseKeys() throws {
        try store.update(ada, from: ["name": "Ada", "age": 36, "city": .null], keys: ["name", "city"], insertingIfAbsent: true)
        #expect(try store.record(ada) == ["name": "Ada"])
    }

    @Test func anUpsertOfAModel() throws {
        let model = Contact(id: "1", name: "Ada", age: 36)
        #expect(try store.update(ada, from: model, insertingIfAbsent: true).count == 3)
        #expect(try store.fetch(Contact.self, id: "1") == model)
        let before = try entryCount()
        #expect(try store.update(ada, from: model, insertingIfAbsent: true).isEmpty)
        #expect(try entryCount() == before)
    }

    @Test func withoutInsertingAMissingRecordIsRecordNotFound() throws {
        #expect(performing: { try store.update(ada, from: ["name": "Ada"]) }, throws: code(.recordNotFound))
        #expect(performing: { try store.update(ada, from: Contact(id: "1", name: "Ada")) }, throws: code(.recordNotFound))
        #expect(try store.record(ada) == nil)
    }

    @Test func anUpsertOfAnotherKindsModelIsRefused() throws {
        let error = try #require(throws: ModelError.self) {
            try store.update(ref("person/1"), from: Contact(id: "1", name: "Ada"), insertingIfAbsent: true)
        }
        #expect(error.code == .wrongKind)
        #expect(try store.record(ref("person/1")) == nil)
    }

    @Test func saveKeepsTheKeysTheModelDoesNotHave() throws {
        try store.save(ContactV2(id: "1", name: "Ada", nickname: "Countess"))
        let before = try entryCount()
        // An older version of the app saves its model: the newer app's nickname survives.
        let changes = try store.save(Contact(id: "1", name: "Ada Lovelace"))
        #expect(changes == ["name": ValueChange(old: "Ada", new: "Ada Lovelace")])
        #expect(try store.record(ada) == ["id": "1", "name": "Ada Lovelace", "nickname": "Countess"])
        #expect(try store.journalEntries().dropFirst(before).map(\.keyPath) == ["name"])
        #expect(try store.save(Contact(id: "1", name: "Ada Lovelace")).isEmpty)
        #expect(try entryCount() == before + 1)
    }

    @Test func aNilOptionalRemovesItsKeyAndUnknownKeysStay() throws {
        try store.save(ContactV2(id: "1", name: "Ada", email: "ada@example.com", nickname: "Countess"))
        let changes = try store.save(Contact(id: "1", name: "Ada", email: nil))
        #expect(changes == ["email": ValueChange(old: "ada@example.com", new: nil)])
        #expect(try store.record(ada) == ["id": "1", "name": "Ada", "nickname": "Countess"])
    }

    @Test func replacingTheWholeRecordRemovesEveryOtherKey() throws {
        try store.save(ContactV2(id: "1", name: "Ada", nickname: "Countess"))
        let changes = try store.save(Contact(id: "1", name: "Ada"), replacing: .wholeRecord)
        #expect(changes == ["nickname": ValueChange(old: "Countess", new: nil)])
        #expect(try store.record(ada) == ["id": "1", "name": "Ada"])
    }

    /// Keeping unknown keys is a top-level rule: a nested dictionary is one key's value.
    @Test func aNestedDictionaryIsReplacedWhole() throws {
        try store.insert(["id": "1", "name": "Ada", "address": ["city": "London", "country": "UK"]], as: ada)
        try store.save(Contact(id: "1", name: "Ada", address: Address(city: "Paris")))
        #expect(try store.record(ada)?["address"] == ["city": "Paris"])
    }

    @Test func aClosedKindRefusesASaveAsAnyWriteAndNothingChanges() throws {
        try store.register(try Kind("contact", keys: ["id": .string, "name": .string]))
        try store.save(Contact(id: "1", name: "Ada"))
        let before = try entryCount()
        #expect(performing: { try store.save(Contact(id: "1", name: "Eve", email: "eve@example.com")) }, throws: code(.undefinedKey))
        #expect(try store.record(ada) == ["id": "1", "name": "Ada"])
        // An upsert that inserts meets the same rules.
        #expect(performing: { try store.update(ref("contact/2"), from: ["bogus": 1], insertingIfAbsent: true) }, throws: code(.undefinedKey))
        #expect(try store.record(ref("contact/2")) == nil)
        #expect(try entryCount() == before)
    }

    @Test func validatorsRunOnASave() throws {
        var contact = try Kind("contact")
        contact.validators["name"] = { value, _, _ in
            if case .string(let text)? = value { value = .string(text.trimmingCharacters(in: .whitespaces)) }
        }
        var options = Store.Options.testing
        options.validatesOnSet = true
        let validated = try TemporaryStore(options: options, kinds: [contact])
        try validated.store.save(Contact(id: "1", name: "Ada"))
        let changes = try validated.store.save(Contact(id: "1", name: "  Ada Lovelace "))
        #expect(changes == ["name": ValueChange(old: "Ada", new: "Ada Lovelace")])
    }
}
