import Foundation
import Synchronization
import Testing
import KVStore   // not @testable: the examples use the public API only

/// The ```swift examples of the typed layer's `///` comments (Sources/KVStore/Typed), each run
/// against a temporary store, adapted as little as possible, with `#expect`s where an example
/// shows a result in a comment. If an example here stops compiling, fix the doc comment too.
@Suite struct TypedDocExampleTests {
    let t: TemporaryStore
    var store: Store { t.store }

    init() throws { t = try TemporaryStore() }

    /// StoredModel.swift.
    struct Contact: StoredModel {
        static let kind = "contact"
        var id: String
        var name: String
        var email: String?
        var address: Address?

        // Typed get, set and observe name properties by Swift key path: bind each one to its
        // record key (through the coding keys, so a renamed key stays right).
        static var recordKeys: [PartialKeyPath<Contact>: String] {
            [\.name: CodingKeys.name.stringValue, \.email: CodingKeys.email.stringValue,
             \.address: CodingKeys.address.stringValue, \.address?.city: "address.city"]
        }
    }
    struct Address: Codable, Hashable { var city: String }

    @Test func storedModel() throws {
        try store.insert(Contact(id: "1", name: "Ada"))
        let ada = try store.fetch(Contact.self, id: "1")          // Contact?
        try store.set(Contact.self, id: "1", \.email, to: "ada@example.com")
        #expect(ada?.name == "Ada")
        #expect(try store.fetch(Contact.self, id: "1")?.email == "ada@example.com")
    }

    /// ValueEncoder.swift and ValueDecoder.swift.
    @Test func valueEncoderAndDecoder() throws {
        struct Address: Codable, Equatable { var city: String; var zip: String? }
        let value = try ValueEncoder().encode(Address(city: "London", zip: nil))
        #expect(value == .dictionary(["city": "London"]))
        let address = try ValueDecoder().decode(Address.self, from: ["city": "London"])
        #expect(address == Address(city: "London", zip: nil))
    }

    /// RecordRef+Codable.swift.
    @Test func recordRefInAModel() throws {
        struct Invoice: Codable { var amount: Int; var customer: RecordRef }
        let value = try ValueEncoder().encode(Invoice(amount: 1, customer: RecordRef("person/ada")))
        #expect(value == ["amount": 1, "customer": .reference(try RecordRef("person/ada"))])
    }

    /// ModelError.swift.
    @Test func modelError() throws {
        struct Invoice: StoredModel {
            static let kind = "invoice"
            var id: String
            var customer: Customer
            struct Customer: Codable { var address: [String: String] }
        }
        try store.insert(["id": "1", "customer": ["address": ["zip": 42]]], as: RecordRef("invoice/1"))
        var printed = ""
        do {
            _ = try store.fetch(Invoice.self, id: "1")
        } catch let error as ModelError {
            print(error)   // invoice/1 customer.address.zip: expected a string, found integer 42
            printed = "\(error)"
        }
        #expect(printed == "invoice/1 customer.address.zip: expected a string, found integer 42")
    }

    /// ReadTransaction+Models.swift, WriteTransaction+Models.swift, Transaction+TypedKeys.swift.
    @Test func transactionForms() throws {
        var contact = Contact(id: "1", name: "Ada")
        try store.write { txn in
            try txn.insert(Contact(id: "1", name: "Ada"))
        }
        contact.email = "ada@example.com"
        try store.write { txn in
            let changes = try txn.save(contact)   // ["email": ValueChange(old: nil, new: "ada@example.com")]
            #expect(changes == ["email": ValueChange(old: nil, new: "ada@example.com")])
            try txn.set(Contact.self, id: "1", \.email, to: "ada@example.com")
        }
        try store.read { txn in
            let ada = try txn.fetch(Contact.self, id: "1")
            let name = try txn.value(of: Contact.self, id: "1", \.name)   // String?
            #expect(ada?.email == "ada@example.com" && name == "Ada")
        }
    }

    /// ValueChange.swift and WriteTransaction+Update.swift.
    @Test func update() throws {
        let ada = try RecordRef("person/ada")
        try store.insert(["name": "Ada", "born": 1815], as: ada)
        let changes = try store.update(ada, from: ["name": "Ada Lovelace", "born": 1815])
        #expect(changes["name"] == ValueChange(old: "Ada", new: "Ada Lovelace"))   // ValueChange(old: "Ada", new: "Ada Lovelace")
        let server: [String: Value] = ["name": "Augusta", "email": "ada@example.com"]
        let printed = Mutex<[String]>([])
        try store.write { txn in
            let changes = try txn.update(ada, from: server, keys: ["name", "email"])
            for (key, change) in changes { printed.withLock { $0.append("\(key) \(change)") } }   // name "Ada" → "Ada Lovelace"
        }
        #expect(printed.withLock { $0 }.sorted() == ["email (absent) → \"ada@example.com\"", "name \"Ada Lovelace\" → \"Augusta\""])
    }

    /// TypedChange.swift: `Store.observe(_:id:_:options:_:)`.
    @Test func observeAProperty() throws {
        try store.insert(Contact(id: "1", name: "Ada"))
        let printed = Mutex<[String]>([])
        let token = try store.observe(Contact.self, id: "1", \.name, options: [.old, .new]) { change in
            printed.withLock { $0.append("\(change.oldValue ?? "none") → \(change.newValue ?? "none")") }   // Ada → Ada Lovelace
        }
        try store.set(Contact.self, id: "1", \.name, to: "Ada Lovelace")
        #expect(printed.withLock { $0 } == ["Ada → Ada Lovelace"])
        token.cancel()
    }

    /// KeyStamp.swift, StampedRecord.swift, Transaction+ModificationTimes.swift, WriteTransaction+Merge.swift.
    @Test func modificationTimesAndMerge() throws {
        var person = try Kind("person")
        person.tracksModificationTimes = true
        try store.register(person)
        let ada = try RecordRef("person/ada")
        try store.insert(["name": "Ada", "nickname": "Countess"], as: ada)
        let stamp = KeyStamp(time: Date(), origin: store.id)
        let serverTime = stamp.time.addingTimeInterval(1), serverID = UUID()

        let remote = StampedRecord(values: ["name": "Ada Lovelace"], time: serverTime, origin: serverID, removed: ["nickname"])
        let changes = try store.merge(ada, from: remote)
        #expect(changes == ["name": ValueChange(old: "Ada", new: "Ada Lovelace"), "nickname": ValueChange(old: "Countess", new: nil)])
        let time = try store.read { txn in
            try txn.modificationTimes(of: ada)["name"]?.time   // when the name last changed
        }
        #expect(time == serverTime)

        let replicaStore = try TemporaryStore(kinds: [person])   // kept: its files must stay while it writes
        let replica = replicaStore.store
        try replica.insert(["name": "Ada"], as: ada)
        let newer = try store.write { txn in
            try txn.setValue("A. A. Lovelace", forKey: "name", of: ada)
            return try #require(try txn.stampedRecord(ada))
        }
        _ = try replica.merge(ada, from: newer)
        let back = try replica.read { try $0.stampedRecord(ada) }!
        let merged = try store.write { try $0.merge(ada, from: back) }   // what the remote changed here
        #expect(merged.isEmpty)
        #expect(try replica.record(ada) == ["name": "A. A. Lovelace"])
        withExtendedLifetime(replicaStore) {}
    }
}
