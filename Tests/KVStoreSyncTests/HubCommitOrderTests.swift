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
            try await withWriterAndHub(database) { slow, hub in
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
            }
        }

        /// Rows inserted in savepoints carry the top-level transaction's id: one rolled back never
        /// appears, one released waits with its transaction, and a reader that jumped past the
        /// rows committed meanwhile (to the open transaction's id) still reads it after the commit.
        @Test func rowsOfSavepointsWaitForTheirTransaction() async throws {
            let database = try await HubDatabase.make()
            let (writer, other, reader) = (UUID(), UUID(), UUID())
            try await withWriterAndHub(database) { slow, hub in
                let logger = Logger(label: "test")
                func insert(_ sequence: Int, _ id: String) async throws {
                    try await slow.query(PostgresQuery(unsafeSQL: """
                        INSERT INTO \(database.schema).changes (origin, origin_seq, stamp_wall, stamp_counter, kind, record_id, key, change, value)
                        VALUES ('\(writer)', \(sequence), 1000, 0, 'person', '\(id)', 'n', 'set', '1')
                        """), logger: logger)
                }
                for statement in ["BEGIN", "SAVEPOINT a"] { try await slow.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await insert(1, "rolled-back")
                for statement in ["ROLLBACK TO a", "SAVEPOINT b"] { try await slow.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await insert(2, "released")
                try await slow.query("RELEASE b", logger: logger)
                try await hub.upload([try change(other, 1, "later")], from: other)

                let whileOpen = try await hub.download(after: .start, excluding: reader)
                #expect(whileOpen.rows.isEmpty && whileOpen.isCaughtUp)
                try await slow.query("COMMIT", logger: logger)
                let afterCommit = try await hub.download(after: whileOpen.cursor, excluding: reader)
                #expect(afterCommit.rows.map(\.change.record.id) == ["released", "later"])
            }
        }

        /// Runs `body` with a plain connection (for a transaction held open) and a client, closing both.
        private func withWriterAndHub(_ database: HubDatabase, _ body: (PostgresConnection, HubClient) async throws -> Void) async throws {
            let slow = try await database.rawConnection()
            let hub = try await database.connect()
            do {
                try await body(slow, hub)
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
