import Foundation
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    /// Rows written into the hub by hand (or by another program) that are not a change: the download
    /// refuses them, naming the row and the problem.
    @Suite struct DamagedRowTests {
        @Test(arguments: [
            ("kind, record_id, key, change, value", #"'person', 'a', 'n', 'set', '{"$date": "yesterday"}'"#,
             "its value is not typed JSON: line 1, column 11: invalid $date 'yesterday', expected ISO 8601 like 2016-07-15T00:00:00Z"),
            ("kind, record_id, key, change, value", #"'person', 'a', 'n', 'set', '{"$kv": "not base64!"}'"#,
             "its $kv envelope is not base64"),
            ("kind, record_id, key, change, value", #"'person', 'a', 'n', 'set', '{"$kv": "AQ=="}'"#,
             "its $kv envelope does not hold a value: truncated value tag at offset 1"),
            ("kind, record_id, key, change, value", "'person', 'a', 'n', 'patch', '1'",
             "its change 'patch' is not one of set, remove, insert, delete"),
            ("kind, record_id, key, change, value", "'1person', 'a', 'n', 'set', '1'",
             "invalid record reference '1person': the kind may hold only ASCII letters, digits, '_', '-' and '.', and start with a letter or '_'"),
            ("kind, record_id, key, change, value", "'person', '', 'n', 'set', '1'", "invalid record reference 'person/': the id is empty"),
            ("kind, record_id, key, change, value", "'person', 'a', NULL, 'set', '1'", "a change 'set' needs a key"),
            ("kind, record_id, key, change, value", "'person', 'a', 'n', 'remove', '1'", "a change 'remove' takes no value"),
            ("kind, record_id, key, change, stamp_counter", "'person', 'a', NULL, 'delete', 70000",
             "its stamp_counter 70000 is not from 0 to 65535"),
            ("kind, record_id, key, change, stamp_wall", "'person', 'a', NULL, 'delete', -1", "its stamp_wall -1 is not from 0 to 2^48-1"),
        ])
        func aDamagedRowIsRefusedByName(columns: String, values: String, problem: String) async throws {
            let database = try await HubDatabase.make()
            let (origin, reader) = (UUID(), UUID())
            try await database.withClient { hub in
                try await hub.upload([], from: origin)  // the schema exists
            }
            let defaults = ["stamp_wall": "1", "stamp_counter": "0"].filter { !columns.contains($0.key) }
            let id = try await database.admin("""
                INSERT INTO \(database.schema).changes (origin, origin_seq, \(defaults.keys.sorted().joined(separator: ", ")), \(columns))
                VALUES ('\(origin)', 1, \(defaults.keys.sorted().map { defaults[$0]! }.joined(separator: ", ")), \(values))
                RETURNING id
                """).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").first.map(String.init) ?? "?"
            let error = try await database.withClient { hub in
                await #expect(throws: SyncError.self) { try await hub.download(after: .start, excluding: reader) }
            }
            #expect(error?.code == .damagedRow)
            #expect(error?.row == Int64(id))
            #expect(error?.message == "hub row \(id) is damaged: \(problem)")
        }
    }
}
