import Foundation
import Testing
@testable import KVStore

/// Inserting, saving, fetching and deleting models by kind and id.
@Suite struct ModelStoreTests {
    let t: TemporaryStore
    var store: Store { t.store }
    let ada = Contact(id: "1", name: "Ada", email: "ada@example.com", age: 36, address: Address(city: "London"))

    init() throws { t = try TemporaryStore() }

    @Test func insertStoresTheEncodingUnderKindAndID() throws {
        try store.insert(ada)
        #expect(try store.record(ref("contact/1")) == [
            "id": "1", "name": "Ada", "email": "ada@example.com", "age": 36, "address": ["city": "London"]])
        #expect(try store.fetch(Contact.self, id: "1") == ada)
        #expect(try store.fetch(Contact.self, id: "2") == nil)
        let entries = try store.journalEntries()
        #expect(entries.map(\.change) == [.recordInserted])
    }

    @Test func insertingTwiceIsRecordExists() throws {
        try store.insert(ada)
        #expect(performing: { try store.insert(ada) }, throws: code(.recordExists))
    }

    @Test func anIntegerIDNamesTheRecord() throws {
        let invoice = Invoice(id: 7, amount: 120, status: .sent,
                              customer: .init(name: "Ada", address: Address(city: "London")), lines: [])
        try store.insert(invoice)
        #expect(try store.read { try $0.contains(ref("invoice/7")) })
        #expect(try store.fetch(Invoice.self, id: 7) == invoice)
    }

    @Test func saveInsertsThenWritesOnlyTheKeysThatChanged() throws {
        let inserted = try store.save(ada)
        #expect(inserted["name"] == ValueChange(old: nil, new: "Ada"))
        var changed = ada
        changed.email = nil
        changed.age = 37
        let changes = try store.save(changed)
        #expect(changes == ["email": ValueChange(old: "ada@example.com", new: nil), "age": ValueChange(old: 36, new: 37)])
        #expect(try store.fetch(Contact.self, id: "1") == changed)
        let before = try store.journalEntries().count
        #expect(try store.save(changed).isEmpty)
        #expect(try store.journalEntries().count == before)
    }

    @Test func fetchAllReadsEveryModelOfTheKindInIDOrder() throws {
        try store.insert(Contact(id: "b", name: "Byron"))
        try store.insert(ada)
        try store.insert(["amount": 1], as: ref("invoice/1"))
        #expect(try store.fetchAll(Contact.self).map(\.id) == ["1", "b"])
    }

    @Test func deleteRemovesTheRecordAndSaysWhetherThereWasOne() throws {
        try store.insert(ada)
        #expect(try store.delete(Contact.self, id: "1"))
        #expect(try !store.delete(Contact.self, id: "1"))
        #expect(try store.fetch(Contact.self, id: "1") == nil)
    }

    @Test func aRecordThatDoesNotDecodeIsAnErrorNamingRecordAndKey() throws {
        try store.insert(["id": "1", "name": 42], as: ref("contact/1"))
        let error = try #require(throws: ModelError.self) { try store.fetch(Contact.self, id: "1") }
        #expect(error.description == "contact/1 name: expected a string, found integer 42")
        #expect(error.ref == ref("contact/1"))
        let all = try #require(throws: ModelDecodingErrors.self) { try store.fetchAll(Contact.self) }
        #expect(all.errors == [error] && all.decodedCount == 0)
    }

    @Test func aMissingKeyNamesTheRecord() throws {
        try store.insert(["id": "1"], as: ref("contact/1"))
        let error = try #require(throws: ModelError.self) { try store.fetch(Contact.self, id: "1") }
        #expect(error.description == "contact/1 name: missing, expected a string")
    }

    @Test func aRefOfAnotherKindIsWrongKind() throws {
        try store.insert(["id": "1", "name": "Ada"], as: ref("person/1"))
        let error = try #require(throws: ModelError.self) { try store.read { try $0.fetch(Contact.self, ref: ref("person/1")) } }
        #expect(error.code == .wrongKind)
        #expect(error.description == "person/1: Contact is stored as kind 'contact', not 'person'")
    }

    @Test func aModelThatCannotBeEncodedChangesNothing() throws {
        struct Counter: StoredModel {
            static let kind = "counter"
            var id: String
            var hits: UInt64
        }
        let error = try #require(throws: ModelError.self) { try store.insert(Counter(id: "c", hits: .max)) }
        #expect(error.description == "counter/c hits: 18446744073709551615 does not fit in a stored int (Int64)")
        #expect(try store.count(ofKind: "counter") == 0)
        #expect(try store.journalEntries().isEmpty)
    }

    @Test func anInvalidIDIsARecordRefError() throws {
        #expect(throws: RecordRefError.self) { try store.insert(Contact(id: "", name: "Nobody")) }
    }

    @Test func aClosedKindsRulesApplyToModels() throws {
        try store.register(try Kind("contact", keys: ["id": .string, "name": .string]))
        #expect(performing: { try store.insert(ada) }, throws: code(.undefinedKey))
        try store.insert(Contact(id: "2", name: "Byron"))
        #expect(try store.fetch(Contact.self, id: "2")?.name == "Byron")
    }

    @Test func aRecordWithoutAnIDKeyTakesItsIDFromItsRef() throws {
        // Written by key-value coding, not by the encoder: no "id" key.
        try store.insert(["name": "Ada"], as: ref("contact/7"))
        #expect(try store.fetch(Contact.self, id: "7") == Contact(id: "7", name: "Ada"))
        try store.insert(["amount": 5, "status": "paid", "lines": [], "customer": ["name": "Ada", "address": ["city": "London"]]],
                         as: ref("invoice/3"))
        #expect(try store.fetchAll(Invoice.self).map(\.id) == [3])
        // Another missing key is reported as such, not as the missing id.
        try store.insert(["email": "eve@example.com"], as: ref("contact/8"))
        let error = try #require(throws: ModelError.self) { try store.fetch(Contact.self, id: "8") }
        #expect(error.description == "contact/8 name: missing, expected a string")
    }

    @Test func aRecordWhoseIDKeyNamesAnotherRecordIsAnError() throws {
        try store.insert(["id": "8", "name": "Eve"], as: ref("contact/7"))
        let error = try #require(throws: ModelError.self) { try store.fetch(Contact.self, id: "7") }
        #expect(error.code == .invalidValue)
        #expect(error.description == "contact/7 id: holds the id 8, but the record's id is 7")
    }

    struct Device: StoredModel, Hashable {
        static let kind = "device"
        var id: UUID
        var name: String
    }

    @Test func aUUIDIDNamesTheRecord() throws {
        let device = Device(id: UUID(), name: "phone")
        try store.insert(device)
        let lowercase = try RecordRef(kind: "device", id: device.id.uuidString.lowercased())
        #expect(try Device.ref(id: device.id) == lowercase)
        #expect(try store.record(lowercase)?["id"] == .string(lowercase.id), "one spelling: the ref's id is the stored id")
        #expect(try store.fetch(Device.self, id: device.id) == device)
        let other = UUID()
        try store.insert(["name": "tablet"], as: RecordRef(kind: "device", id: other.uuidString))
        #expect(try store.fetch(Device.self, id: other) == Device(id: other, name: "tablet"))
    }

    @Test func aSaveThatInsertsReportsTheValuesTheKindStored() throws {
        try store.register(try Kind("contact", keys: ["id": .string, "name": .string, "email": .string, "age": .double, "address": .dictionary]))
        let changes = try store.save(Contact(id: "5", name: "Ada", age: 36))
        #expect(changes == ["id": ValueChange(old: nil, new: "5"), "name": ValueChange(old: nil, new: "Ada"),
                            "age": ValueChange(old: nil, new: 36.0)])
        #expect(try store.record(ref("contact/5"))?["age"] == 36.0)
    }
}
