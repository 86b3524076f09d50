import Foundation
import KVStore
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    @Suite struct UploadTests {
        @Test func theSameBatchTwiceIsStoredOnce() async throws {
            let database = try await HubDatabase.make()
            let store = UUID()
            let batch = try sampleChanges(5, from: store)
            let counts = try await database.withClient { hub in
                [try await hub.upload(batch, from: store).newChanges, try await hub.upload(batch, from: store).newChanges]
            }
            #expect(counts == [5, 0])
            #expect(try await database.admin("SELECT count(*) FROM \(database.schema).changes") == "5\n")
        }

        /// The hub committed, the acknowledgement was lost, the store sends again from its old cursor
        /// with what it wrote since: only the new changes are stored.
        @Test func aBatchRetriedAfterALostAcknowledgementTakesEffectOnce() async throws {
            let database = try await HubDatabase.make()
            let store = UUID()
            let (retried, stores) = try await database.withClient { hub in
                try await hub.upload(try sampleChanges(5, from: store), from: store)
                return (try await hub.upload(try sampleChanges(8, from: store), from: store), try await hub.stores())
            }
            #expect(retried.newChanges == 3)
            #expect(try await database.admin("SELECT count(*), max(origin_seq) FROM \(database.schema).changes") == "8|8\n")
            #expect(stores.map(\.uploadedThrough) == [8])
        }

        @Test func theHubClockIsReturned() async throws {
            let database = try await HubDatabase.make()
            let before = Date()
            let result = try await database.withClient { hub in try await hub.upload([], from: UUID()) }
            #expect(result.newChanges == 0)
            #expect(abs(result.hubTime.timeIntervalSince(before)) < 5)  // the same machine's clock
        }

        /// Values `jsonb` would change travel in a `{"$kv": base64}` envelope and come back exactly;
        /// the rest of the batch is stored as typed JSON, queryable in SQL.
        @Test(arguments: [
            Value.double(1e20), .array([.double(-0.0)]), .dictionary(["a": .string("x\u{0}y")]), .dictionary(["a\u{0}": 1]),
            .date(Date(timeIntervalSinceReferenceDate: 1e300)),
        ])
        func valuesJsonbWouldChangeTravelInAnEnvelope(value: Value) async throws {
            let database = try await HubDatabase.make()
            let (store, reader) = (UUID(), UUID())
            var batch = try sampleChanges(3, from: store)
            batch[1].value = value
            let rows = try await database.withClient { hub in
                try await hub.upload(batch, from: store)
                return try await hub.download(after: .start, excluding: reader).rows
            }
            #expect(rows.map(\.change) == batch)
            #expect(rows.map { TypedJSON.string(from: $0.change.value ?? .null) } == batch.map { TypedJSON.string(from: $0.value ?? .null) })
            let stored = try await database.admin("SELECT value->>'$kv' IS NOT NULL FROM \(database.schema).changes ORDER BY origin_seq")
            #expect(stored == "f\nt\nf\n")
        }

        /// A key the hub's `text` column cannot hold stores nothing of the batch, and names the change.
        @Test func aKeyContainingNULIsRefused() async throws {
            let database = try await HubDatabase.make()
            let store = UUID()
            var batch = try sampleChanges(3, from: store)
            batch[1].key = "a\u{0}b"
            let error = try await database.refusedUpload(batch, from: store)
            #expect(error?.code == .unrepresentableValue)
            #expect(error?.message == "cannot upload change 2 of person/id-1: its key contains U+0000")
            #expect(try await database.admin("SELECT count(*) FROM \(database.schema).changes") == "0\n")
        }

        @Test func aChangeOfAnotherStoreIsRefused() async throws {
            let database = try await HubDatabase.make()
            let (store, other) = (UUID(), UUID())
            let batch = try sampleChanges(1, from: other)
            let error = try await database.refusedUpload(batch, from: store)
            #expect(error?.message == "cannot upload change 1 of person/id-0: it comes from store \(other), not \(store)")
        }

        /// Two changes with one sequence in one batch: `ON CONFLICT DO NOTHING` would keep the first
        /// and drop the second without a word.
        @Test func aSequenceTwiceInOneBatchIsRefused() async throws {
            let database = try await HubDatabase.make()
            let store = UUID()
            var batch = try sampleChanges(3, from: store)
            batch[2].originSequence = 2
            let error = try await database.refusedUpload(batch, from: store)
            #expect(error?.code == .refused)
            #expect(error?.message == "cannot upload change 2 of person/id-2: the batch holds sequence 2 twice")
            #expect(try await database.admin("SELECT count(*) FROM \(database.schema).changes") == "0\n")
        }

        /// A store restored from an older copy writes new changes under sequences it had already
        /// uploaded: the hub must not keep the old ones and call the new ones "already stored".
        @Test func aSequenceTheHubHoldsWithOtherContentIsRefused() async throws {
            let database = try await HubDatabase.make()
            let store = UUID()
            var rewritten = try sampleChanges(5, from: store)
            rewritten[3].value = .string("written after the restore")
            let (retried, error) = try await database.withClient { hub in
                try await hub.upload(try sampleChanges(4, from: store), from: store)
                let retried = try await hub.upload(try sampleChanges(4, from: store), from: store)  // the same: fine
                let error = await #expect(throws: SyncError.self) { try await hub.upload(Array(rewritten[2...]), from: store) }
                return (retried, error)
            }
            #expect(retried.newChanges == 0)
            #expect(error?.code == .restoredOrCopied)
            #expect(error?.message == "cannot upload change 4 of person/id-3: the hub holds change 4 of store \(store) with other "
                        + "content (was the store restored from an older copy, or copied with its id?)")
            #expect(try await database.admin("SELECT count(*), max(origin_seq) FROM \(database.schema).changes") == "4|4\n")
        }
    }
}
