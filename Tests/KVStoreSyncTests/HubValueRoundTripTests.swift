import Foundation
import KVStore
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    @Suite struct ValueRoundTripTests {
        /// Values at the edges of what `jsonb` holds: each comes back exactly (same typed JSON), those
        /// `jsonb` would change in their envelope.
        @Test func edgeValuesComeBackExactly() async throws {
            let database = try await HubDatabase.make()
            let deep = (0..<200).reduce(Value.int(1)) { inner, _ in .array([inner]) }
            let values: [Value] = [
                .int(Int64.min), .int(Int64.max), .double(.leastNonzeroMagnitude), .double(-2.2250738585072014e-308), .double(9007199254740991.0),
                .double(0.1 + 0.2), .double(-1e-300), .double(1e16), .double(-.greatestFiniteMagnitude), .double(-0.0),
                .string("\u{1}\u{1F}\u{7F}\u{FEFF}\u{10FFFF}\u{2028}"), .string(""), .string("a\u{0}"),
                .dictionary(["a\"b\\c/\n": 1, "": 2, "é": 3, "e\u{301}x": 4]), .dictionary(["$date": "x"]),
                .dictionary(["$date": "x", "y": 1]), .dictionary(["$": .null]), .date(Date(timeIntervalSinceReferenceDate: 0.1 + 1e-9)),
                .date(Date(timeIntervalSinceReferenceDate: -0.0)), .date(Date(timeIntervalSinceReferenceDate: -1e-300)),
                .date(Date(timeIntervalSinceReferenceDate: 9007199254740992)), .date(Date(timeIntervalSinceReferenceDate: .nan)),
                .bytes(Data()), .bytes(Data(repeating: 0, count: 1000)), .reference(try RecordRef(kind: "k.k-k_", id: "id/with/slashes %41")),
                deep, .array([]), .dictionary([:]),
            ]
            let rows = try await database.uploadEachAndDownload(values)
            for row in rows {
                let sent = values[Int(row.change.originSequence) - 1]
                #expect(TypedJSON.string(from: row.change.value ?? .null) == TypedJSON.string(from: sent), "value \(row.change.originSequence)")
            }
            #expect(rows.count == values.count)
        }
    }
}

extension HubDatabase {
    /// Uploads each value as a change of its own (sequence 1, 2, … of one store, key `v` of
    /// `person/pN`), then downloads them all as another store: the rows, in upload order.
    func uploadEachAndDownload(_ values: [Value]) async throws -> [HubRow] {
        let (origin, reader) = (UUID(), UUID())
        return try await withClient { hub in
            for (index, value) in values.enumerated() {
                let change = HubChange(origin: origin, originSequence: UInt64(index + 1), stamp: HubStamp(wall: 1, counter: 0),
                                       record: try RecordRef(kind: "person", id: "p\(index)"), key: "v", change: .set, value: value)
                try await hub.upload([change], from: origin)
            }
            return try await hub.download(after: .start, excluding: reader).rows
        }
    }
}
