import Foundation
import Testing
@testable import KVStore

/// A model's `UUID` id names its record in lowercase, as its `id` value is stored; records an
/// older store keeps under the uppercase spelling are still read and written.
@Suite struct UUIDSpellingTests {
    let t: TemporaryStore
    var store: Store { t.store }

    init() throws { t = try TemporaryStore() }

    struct Device: StoredModel, Hashable {
        static let kind = "device"
        var id: UUID
        var name: String
        static var recordKeys: [PartialKeyPath<Device>: String] { [\.name: "name"] }
    }

    /// A record as stores wrote it before: under the uppercase id, holding the lowercase `id` value.
    func legacyRecord(_ id: UUID, name: String) throws -> RecordRef {
        let ref = try RecordRef(kind: "device", id: id.uuidString)
        try store.insert(["id": .string(id.uuidString.lowercased()), "name": .string(name)], as: ref)
        return ref
    }

    @Test func aLegacyUppercaseRecordIsFetchedSavedSetAndDeletedByItsModelID() throws {
        let id = UUID()
        let legacy = try legacyRecord(id, name: "phone")
        #expect(try store.fetch(Device.self, id: id) == Device(id: id, name: "phone"))
        try store.save(Device(id: id, name: "tablet"))
        #expect(try store.record(legacy)?["name"] == "tablet", "saved in place, not as a second record")
        #expect(try store.read { try $0.count(ofKind: "device") } == 1)
        try store.write { try $0.set(Device.self, id: id, \.name, to: "watch") }
        #expect(try store.read { try $0.value(of: Device.self, id: id, \.name) } == "watch")
        #expect(try store.delete(Device.self, id: id))
        #expect(try store.read { try $0.count(ofKind: "device") } == 0)
    }

    @Test func eitherSpellingResolvesToTheStoredRecordAndOtherIdsAreLeftAlone() throws {
        let id = UUID()
        try store.insert(Device(id: id, name: "phone"))
        let upper = try RecordRef(kind: "device", id: id.uuidString)
        let lower = try RecordRef(kind: "device", id: id.uuidString.lowercased())
        #expect(try store.read { try $0.resolvingUUIDSpelling(upper) } == lower)
        #expect(try store.read { try $0.resolvingUUIDSpelling(lower) } == lower)
        let missing = try RecordRef(kind: "device", id: UUID().uuidString)
        #expect(try store.read { try $0.resolvingUUIDSpelling(missing) } == missing)
        let plain = try RecordRef(kind: "device", id: "Phone")
        #expect(plain.otherUUIDSpelling == nil)
    }
}
