import Foundation
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    @Suite struct SchemaTests {
        @Test func theSchemaIsCreatedOnceAndReused() async throws {
            let database = try await HubDatabase.make()
            await (try database.connect()).close()
            try await database.admin("INSERT INTO \(database.schema).stores (store_id) VALUES (gen_random_uuid())")
            let created = try await database.admin("SELECT version, applied_at FROM \(database.schema).schema_version")
            let second = try await database.connect()
            await second.close()
            #expect(try await database.admin("SELECT version, applied_at FROM \(database.schema).schema_version") == created)
            #expect(created.hasPrefix("1|"))
            #expect(try await database.admin("SELECT count(*) FROM \(database.schema).stores") == "1\n")
            let tables = try await database.admin("SELECT tablename FROM pg_tables WHERE schemaname = '\(database.schema)' ORDER BY 1")
            #expect(tables == "changes\nhub\nschema_version\nstores\n")
        }

        /// Stores connecting for the first time at once: the advisory lock makes one create the
        /// tables while the others wait, then find them.
        @Test func firstConnectionsAtOnceDoNotRace() async throws {
            let database = try await HubDatabase.make()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 {
                    group.addTask { await (try database.connect()).close() }
                }
                try await group.waitForAll()
            }
            #expect(try await database.admin("SELECT version FROM \(database.schema).schema_version ORDER BY 1") == "1\n2\n3\n")
            #expect(try await database.admin("SELECT count(*) FROM \(database.schema).hub") == "1\n")
        }

        /// A hub made by the first version gains its identity, once.
        @Test func aVersion1HubIsMigrated() async throws {
            let database = try await HubDatabase.make()
            let first = try await database.connect()
            let identity = try await first.identity()
            await first.close()
            try await database.admin("DROP TABLE \(database.schema).hub; DELETE FROM \(database.schema).schema_version WHERE version >= 2")
            let second = try await database.connect()
            let migrated = try await second.identity()
            await second.close()
            #expect(migrated != identity)
            #expect(try await database.admin("SELECT max(version) FROM \(database.schema).schema_version") == "3\n")
        }

        /// A user who may create schemas in the database gets the one the URL names.
        @Test func theClientCreatesTheSchemaWhenItMay() async throws {
            let database = try await HubDatabase.make(userCreatesSchema: true)
            await (try database.connect()).close()
            #expect(try await database.admin("SELECT nspowner::regrole FROM pg_namespace WHERE nspname = '\(database.schema)'") == "\(database.user)\n")
            #expect(try await database.admin("SELECT count(*) FROM pg_tables WHERE schemaname = '\(database.schema)'") == "4\n")
        }

        @Test func aNewerSchemaIsRefused() async throws {
            let database = try await HubDatabase.make()
            await (try database.connect()).close()
            try await database.admin("INSERT INTO \(database.schema).schema_version (version) VALUES (7)")
            let error = await #expect(throws: SyncError.self) { try await database.connect() }
            #expect(error?.code == .schemaTooNew)
            #expect(error?.description == "\(database.hubName): the hub's schema \(database.schema) is at version 7; "
                        + "this build of kvstore understands up to version 3: upgrade kvstore")
        }
    }
}
