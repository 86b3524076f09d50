import Foundation
import Synchronization
import Testing
@testable import KVStore

/// Review of the UUID-spelling fallback: every typed entry point by model id must reach a
/// record an older store keeps under the uppercase spelling, never make a second one.
extension UUIDSpellingTests {
    @Test func insertingAModelWhoseLegacyRecordExistsIsRefusedNotADuplicate() throws {
        let id = UUID()
        _ = try legacyRecord(id, name: "phone")
        #expect(throws: KeyValueCodingError.self) { try store.insert(Device(id: id, name: "tablet")) }
        #expect(try store.read { try $0.count(ofKind: "device") } == 1, "one record per model id")
    }

    @Test func observingAModelByIDSeesItsLegacyRecordChange() throws {
        let id = UUID()
        _ = try legacyRecord(id, name: "phone")
        let seen = Mutex<[String?]>([])
        let token = try store.observe(Device.self, id: id, \.name, options: [.new]) { change in
            seen.withLock { $0.append(change.newValue) }
        }
        try store.write { try $0.set(Device.self, id: id, \.name, to: "watch") }
        #expect(seen.withLock { $0 } == ["watch"])
        _ = token
    }
}
