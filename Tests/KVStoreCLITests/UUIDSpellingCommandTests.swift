import Foundation
import KVStore
import Testing
import TestSupport

/// `get`, `set` and `rm` find a record by either spelling of its UUID id.
@Suite(.tags(.subprocess), .skippedByTag) struct UUIDSpellingCommandTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
    }

    /// A record of a model with a UUID id is named by the id as stored (lowercase); `get`, `set`
    /// and `rm` find a record by either spelling of its UUID.
    @Test func aUUIDIDIsFoundInEitherCase() throws {
        let id = UUID()
        // As stores kept a model's record before: under the uppercase id, the `id` value lowercase.
        try Store(path: store).insert(["name": "phone", "id": .string(id.uuidString.lowercased())], as: RecordRef(kind: "device", id: id.uuidString))
        for spelling in [id.uuidString.lowercased(), id.uuidString] {
            #expect(try dir.succeed("get", store, "device/\(spelling)", "name").stdout == "\"phone\"\n")
        }
        try dir.succeed("set", store, "device/\(id.uuidString.lowercased())", "name", #""tablet""#)
        #expect(try dir.succeed("dump", store, "--kind", "device").stdout.contains(#""id":"\#(id.uuidString)","values":{"id":"\#(id.uuidString.lowercased())","name":"tablet"}"#))
        try dir.succeed("rm", store, "device/\(id.uuidString.lowercased())")
        try dir.fail(["get", store, "device/\(id.uuidString)"], says: "no such record")
    }
}
