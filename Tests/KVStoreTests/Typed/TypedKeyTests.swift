import Foundation
import Synchronization
import Testing
@testable import KVStore

/// Typed get, set and observe through Swift key paths bound by `recordKeys`.
@Suite struct TypedKeyTests {
    let t: TemporaryStore
    var store: Store { t.store }

    init() throws {
        t = try TemporaryStore()
        try t.store.insert(Contact(id: "1", name: "Ada", age: 36, address: Address(city: "London")))
    }

    @Test func getReadsOneKeyAsThePropertysType() throws {
        #expect(try store.value(of: Contact.self, id: "1", \.name) == "Ada")
        #expect(try store.value(of: Contact.self, id: "1", \.age) == 36)
        #expect(try store.value(of: Contact.self, id: "1", \.address) == Address(city: "London"))
        #expect(try store.value(of: Contact.self, id: "1", \.address?.city) == "London")
        #expect(try store.value(of: Contact.self, id: "1", \.email) == nil)
    }

    @Test func setWritesThroughKeyValueCoding() throws {
        try store.set(Contact.self, id: "1", \.email, to: "ada@example.com")
        try store.set(Contact.self, id: "1", \.address?.city, to: "Paris")
        try store.set(Contact.self, id: "1", \.age, to: nil)
        #expect(try store.record(ref("contact/1")) == [
            "id": "1", "name": "Ada", "email": "ada@example.com", "address": ["city": "Paris"]])
        let count = try store.journalEntries().count
        try store.set(Contact.self, id: "1", \.name, to: "Ada")
        #expect(try store.journalEntries().count == count)
    }

    @Test func anUnboundKeyPathIsAnError() throws {
        let error = try #require(throws: ModelError.self) { try store.value(of: Contact.self, id: "1", \.id) }
        #expect(error.code == .unknownKeyPath)
        #expect(error.description == "Contact binds no record key to \\Contact.id; add it to Contact.recordKeys")
        #expect(throws: ModelError.self) { try store.set(Contact.self, id: "1", \.id, to: "2") }
        #expect(throws: ModelError.self) { try store.observe(Contact.self, id: "1", \.id) { _ in } }
    }

    @Test func aValueOfAnotherTypeIsAnErrorNamingTheKey() throws {
        try store.setValue("old", forKey: "age", of: ref("contact/1"))
        let error = try #require(throws: ModelError.self) { try store.value(of: Contact.self, id: "1", \.age) }
        #expect(error.description == "contact/1 age: expected an integer, found string \"old\"")
    }

    @Test func aMissingRecordIsRecordNotFound() throws {
        #expect(performing: { try store.value(of: Contact.self, id: "9", \.name) }, throws: code(.recordNotFound))
        #expect(performing: { try store.set(Contact.self, id: "9", \.name, to: "X") }, throws: code(.recordNotFound))
    }

    @Test func observeDeliversTypedOldAndNewValues() throws {
        let seen = Mutex<[String]>([])
        let token = try store.observe(Contact.self, id: "1", \.name, options: [.initial, .old, .new]) { change in
            seen.withLock { $0.append("\(change.oldValue ?? "none") → \(change.newValue ?? "none")") }
        }
        try store.set(Contact.self, id: "1", \.name, to: "Ada Lovelace")
        #expect(seen.withLock { $0 } == ["none → Ada", "Ada → Ada Lovelace"])
        token.cancel()
    }

    @Test func observeReportsAValueThatDoesNotDecodeInsteadOfCrashing() throws {
        let seen = Mutex<[TypedChange<Int?>]>([])
        let token = try store.observe(Contact.self, id: "1", \.age, options: [.old, .new]) { change in
            seen.withLock { $0.append(change) }
        }
        try store.setValue("thirty-six", forKey: "age", of: ref("contact/1"))
        let change = try #require(seen.withLock { $0.first })
        #expect(change.oldValue == 36)
        #expect(change.newValue == nil)
        #expect(change.change.newValue == "thirty-six")
        #expect(change.error?.description == "contact/1 age: expected an integer, found string \"thirty-six\"")
        token.cancel()
    }

    @Test func observeANestedKeyPath() throws {
        let seen = Mutex<[String?]>([])
        let token = try store.observe(Contact.self, id: "1", \.address?.city) { change in
            seen.withLock { $0.append(change.newValue ?? nil) }
        }
        try store.set(Contact.self, id: "1", \.address, to: Address(city: "Paris", zip: "75001"))
        #expect(seen.withLock { $0 } == ["Paris"])
        token.cancel()
    }

    struct Playlist: StoredModel {
        static let kind = "playlist"
        var id: String
        var songs: [String]
        static var recordKeys: [PartialKeyPath<Playlist>: String] { [\.songs: "songs"] }
    }

    @Test func indexLevelChangesDeliverTheElementsAsThePropertysType() throws {
        try store.insert(Playlist(id: "1", songs: ["a", "b"]))
        let seen = Mutex<[String]>([])
        let token = try store.observe(Playlist.self, id: "1", \.songs, options: [.old, .new]) { change in
            seen.withLock { $0.append("\(change.change.kind) \(change.change.indexes ?? []) \(change.oldValue ?? []) \(change.newValue ?? [])") }
        }
        try store.write { txn in try txn.mutableArray(forKey: "songs", of: ref("playlist/1")).insert("c", at: 1) }
        try store.write { txn in try txn.mutableArray(forKey: "songs", of: ref("playlist/1")).remove(at: 0) }
        #expect(seen.withLock { $0 } == ["insertion [1] [] [\"c\"]", "removal [0] [\"a\"] []"])
        token.cancel()
    }

    @Test func releasingTheTokenEndsATypedObservation() throws {
        let seen = Mutex(0)
        var token: ObservationToken? = try store.observe(Contact.self, id: "1", \.name) { _ in seen.withLock { $0 += 1 } }
        try store.set(Contact.self, id: "1", \.name, to: "B")
        #expect(token != nil)
        token = nil
        try store.set(Contact.self, id: "1", \.name, to: "C")
        #expect(seen.withLock { $0 } == 1)
    }
}
