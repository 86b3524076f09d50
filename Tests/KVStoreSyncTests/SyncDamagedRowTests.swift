import Foundation
@_spi(Sync) import KVStore
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    /// A row of the hub's changes table damaged by hand, between good rows: a sync pass — the
    /// library's and `kvstore sync`'s — refuses it with one line naming the row and the problem,
    /// and the downloading store keeps what it had and its cursor stays where it was.
    @Suite struct SyncDamagedRowTests {
        @Test(arguments: [
            ("'patch', 'title', '1'", "its change 'patch' is not one of set, remove, insert, delete"),
            ("'insert', NULL, '1'", "a change 'insert' takes the record (a dictionary) as its value"),
            (#"'set', 'title', '{"$date": "yesterday"}'"#,
             "its value is not typed JSON: line 1, column 11: invalid $date 'yesterday', expected ISO 8601 like 2016-07-15T00:00:00Z"),
        ])
        func aDamagedRowStopsTheEngineAndTheCommand(row: String, problem: String) async throws {
            let database = try await HubDatabase.make()
            let stores = try SyncedStores(2)
            let (writer, reader) = try (stores.engine(0, database), stores.engine(1, database))
            try stores.writeNotes(0, count: 2)
            _ = try await writer.sync()
            _ = try await reader.sync()
            try stores.writeNotes(0, count: 1, from: 2)
            _ = try await writer.sync()
            let id = try await database.admin("""
                INSERT INTO \(database.schema).changes (origin, origin_seq, stamp_wall, stamp_counter, kind, record_id, change, key, value)
                VALUES ('\(UUID())', 1, \(UInt64(Date().timeIntervalSince1970 * 1000)), 0, 'note', 'damaged', \(row)) RETURNING id
                """).split(separator: "\n").first.map(String.init) ?? "?"
            try stores.writeNotes(0, count: 1, from: 3)
            await #expect(throws: SyncError.self) { try await writer.sync() }  // uploaded; its download stops at the row too
            let before = try Self.state(of: stores)

            let error = await #expect(throws: SyncError.self) { try await reader.sync() }
            #expect(error?.code == .damagedRow && error?.row == Int64(id), "\(String(describing: error))")
            #expect(error?.description == "\(database.hubName): hub row \(id) is damaged: \(problem)")
            #expect(try Self.state(of: stores) == before)

            let command = try await SyncTool.run(["sync", stores[1].path, database.url()], in: stores.directory)
            #expect(command.status == 1 && command.stdout.isEmpty, "\(command)")
            #expect(command.stderr == "kvstore: \(database.hubName): hub row \(id) is damaged: \(problem)\n")
            #expect(try Self.state(of: stores) == before)

            try await database.admin("DELETE FROM \(database.schema).changes WHERE id = \(id)")
            #expect(try await reader.sync().applied == 2)
            #expect(try stores.records(1) == stores.records(0))
        }

        /// The reader's records and download cursor (its upload cursor moves past the entries it
        /// applied, which it does not upload).
        static func state(of stores: SyncedStores) throws -> State {
            let cursors = try #require(try stores[1].read { try $0.syncCursors() })
            return State(records: try stores.records(1), download: cursors.download)
        }

        struct State: Equatable {
            let records: [RecordRef: [String: Value]]
            let download: [UInt8]
        }
    }
}
