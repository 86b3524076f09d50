import Foundation
import Testing
@testable import KVStore

/// A model whose `encode(to:)` hands its whole encoding to another value through a single-value
/// container (a wrapper around a shared payload type): its keys are the payload's.
struct WrappedContact: StoredModel, Hashable {
    static let kind = "contact"
    var payload: ContactV2
    var id: String { payload.id }

    init(_ payload: ContactV2) { self.payload = payload }
    init(from decoder: any Decoder) throws { payload = try decoder.singleValueContainer().decode(ContactV2.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(payload)
    }
}

/// Review of issue 17 items 3–4: saves that keep unknown keys, and migrations.
@Suite struct ReviewModelsTests {
    let t: TemporaryStore
    var store: Store { t.store }

    init() throws { t = try TemporaryStore() }

    /// The payload encodes `email` through `encodeIfPresent` (synthesized), so a nil email is a
    /// key the model has: the save must remove it, as it does for `ContactV2` itself.
    @Test func aNilOptionalOfAModelEncodedThroughASingleValueContainerRemovesItsKey() throws {
        try store.save(ContactV2(id: "1", name: "Ada", email: "ada@example.com"))
        let changes = try store.save(WrappedContact(ContactV2(id: "1", name: "Ada", email: nil)))
        #expect(changes == ["email": ValueChange(old: "ada@example.com", new: nil)])
        #expect(try store.record(ref("contact/1")) == ["id": "1", "name": "Ada"])
    }

    /// What the store records is what `kvstore kind` prints and every error names: a name with a
    /// line break (or another control character) would make them two lines.
    @Test func aMigrationNameWithALineBreakIsAnInvalidName() throws {
        var migrator = Migrator()
        migrator.register("v2\nv3") { _ in }
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(store) }
        #expect(error.code == .invalidName)
        #expect(try store.read { try $0.appliedMigrations() }.isEmpty)
    }
}
