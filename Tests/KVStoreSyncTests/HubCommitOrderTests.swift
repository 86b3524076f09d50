import Foundation
import KVStore
import KVStoreSync
import Logging
import PostgresNIO
import Testing
import TestSupport

extension HubTests {
    /// Row ids become visible out of commit order. Here a transaction takes the lower id first and
    /// commits last: a reader must never skip its row.
    @Suite struct CommitOrderTests {
        @Test func aTransactionThatInsertsFirstAndCommitsLastIsNotSkipped() async throws {
            let database = try await HubDatabase.make()
            let (writer, reader) = (UUID(), UUID())
            let slow = try await database.rawConnection()
            let hub = try await database.connect()
            do {
                let logger = Logger(label: "test")
                try await slow.query("BEGIN", logger: logger)
                // A: inserts first, so it gets the lower id and transaction id, and stays open.
                try await slow.query(PostgresQuery(unsafeSQL: """
                    INSERT INTO \(database.schema).changes (origin, origin_seq, stamp_wall, stamp_counter, kind, record_id, key, change, value)
                    VALUES ('\(writer)', 1, 1000, 0, 'person', 'a', 'n', 'set', '1')
                    """), logger: logger)
                // B: inserts and commits while A is open.
                try await hub.upload([try change(writer, 2, "b")], from: writer)
                #expect(try await database.admin("SELECT count(*) FROM \(database.schema).changes") == "1\n")  // only B is visible

                let whileOpen = try await hub.download(after: .start, excluding: reader)
                #expect(whileOpen.rows.isEmpty)  // B waits for A: reading it would move the cursor past A's row

                try await slow.query("COMMIT", logger: logger)
                let afterCommit = try await hub.download(after: whileOpen.cursor, excluding: reader)
                #expect(afterCommit.rows.map(\.change.record.id) == ["a", "b"])
                #expect(afterCommit.rows.first?.cursor.id ?? 0 < afterCommit.rows.last?.cursor.id ?? 0)  // A had the lower id
            } catch {
                try? await slow.close()
                await hub.close()
                throw error
            }
            try await slow.close()
            await hub.close()
        }

        private func change(_ origin: UUID, _ sequence: UInt64, _ id: String) throws -> HubChange {
            HubChange(origin: origin, originSequence: sequence, stamp: HubStamp(wall: 1000 + sequence, counter: 0),
                      record: try RecordRef(kind: "person", id: id), key: "n", change: .set, value: .int(Int64(sequence)))
        }
    }
}
