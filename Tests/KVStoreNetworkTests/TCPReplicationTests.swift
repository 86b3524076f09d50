import Foundation
import KVStore
import KVStoreNetwork
import Testing
import TestSupport

/// Replication over TCP between a ``JournalServer`` and ``JournalClient``s in this process, on
/// loopback with ephemeral ports.
@Suite(.tags(.network), .skippedByTag) struct TCPReplicationTests {
    @Test func aWholeJournalGoesOverTCPAndTheReplicaMatches() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(50, into: source)
        try source.setValue("renamed", forKey: "name", of: RecordRef("item/3"))
        let server = try startedServer(source)
        defer { server.stop() }

        let summary = try client(of: server, into: directory.path("replica")).run()

        let replica = try Store(path: directory.path("replica"))
        #expect(summary.source == source.id && summary.replica == replica.id)
        #expect(summary.applied == 51 && summary.skipped == 0 && summary.reseeds == 0)
        #expect(summary.appliedSequence == 51 && summary.sourceLastSequence == 51 && summary.lag == 0)
        #expect(try sameRecords(source, replica))
        #expect(try checkpoint(of: replica, for: source) == 51)
    }

    @Test func runningAgainAppliesOnlyWhatIsNew() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(10, into: source)
        let server = try startedServer(source)
        defer { server.stop() }
        try client(of: server, into: directory.path("replica")).run()
        try commitItems(5, startingAt: 10, into: source)

        let summary = try client(of: server, into: directory.path("replica")).run()

        #expect(summary.applied == 5 && summary.appliedSequence == 15)
        #expect(try sameRecords(source, Store(path: directory.path("replica"))))
    }

    @Test func aFollowingReplicaPicksUpNewCommitsAndReportsItsLag() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(5, into: source)
        let server = try startedServer(source)
        defer { server.stop() }
        let following = FollowingClient(client(of: server, into: directory.path("replica"), follow: true))
        #expect(following.waitForCheckpoint(5))

        try commitItems(20, startingAt: 5, into: source)
        try source.write { txn in
            try txn.setValue(.int(99), forKey: "n", of: RecordRef("item/0"))
            try txn.removeValue(forKey: "name", of: RecordRef("item/1"))
        }

        #expect(following.waitForCheckpoint(27))
        let status = try #require(following.status)
        #expect(status.source == source.id && status.appliedSequence == 27 && status.lag == 0)
        #expect(following.stop().isEmpty)
        let replica = try Store(path: directory.path("replica"))
        #expect(try sameRecords(source, replica))
        // The source's position, as the stream told it, is saved with the checkpoint (stat's lag).
        #expect(try replica.read { try $0.replicationSources() }.first?.sourceLastSequence == 27)
    }

    @Test func aServerStartsOnce() throws {
        let directory = try TemporaryDirectory()
        let server = try startedServer(try directory.store("source"))
        #expect(throws: ServerError.self) { try server.start() }
        server.stop()
        #expect(throws: ServerError.self) { try server.start() }
    }

    @Test func twoReplicasFollowAtOnce() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        let server = try startedServer(source)
        defer { server.stop() }
        let first = FollowingClient(client(of: server, into: directory.path("first"), follow: true))
        let second = FollowingClient(client(of: server, into: directory.path("second"), follow: true))

        try commitItems(30, into: source)

        #expect(first.waitForCheckpoint(30) && second.waitForCheckpoint(30))
        #expect(first.stop().isEmpty && second.stop().isEmpty)
        #expect(try sameRecords(source, Store(path: directory.path("first"))))
        #expect(try sameRecords(source, Store(path: directory.path("second"))))
    }

    @Test func aFollowingReplicaResumesAfterTheServerRestarts() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(10, into: source)
        var server = try startedServer(source)
        let port = server.port
        let following = FollowingClient(client(of: server, into: directory.path("replica"), follow: true))
        #expect(following.waitForCheckpoint(10))

        server.stop()
        try commitItems(10, startingAt: 10, into: source)   // committed while no server runs
        server = try startedServer(source) { $0.port = port }
        defer { server.stop() }
        try commitItems(10, startingAt: 20, into: source)

        #expect(following.waitForCheckpoint(30))
        #expect(following.stop().isEmpty)
        let replica = try Store(path: directory.path("replica"))
        #expect(try sameRecords(source, replica))
        // Each source entry applied once: the replica journaled exactly the source's 30 entries.
        #expect(try lastSequence(replica) == 30)
    }

    @Test func aReplicaOfAReplicaOverTCPChainsTheChanges() throws {
        let directory = try TemporaryDirectory()
        let a = try directory.store("a")
        let serverA = try startedServer(a)
        defer { serverA.stop() }
        let b = FollowingClient(client(of: serverA, into: directory.path("b"), follow: true))
        try commitItems(10, into: a)
        #expect(b.waitForCheckpoint(10))
        let storeB = try Store(path: directory.path("b"))
        let serverB = try startedServer(storeB)
        defer { serverB.stop() }

        let c = FollowingClient(client(of: serverB, into: directory.path("c"), follow: true))
        try commitItems(5, startingAt: 10, into: a)

        #expect(b.waitForCheckpoint(15) && c.waitForCheckpoint(15))
        #expect(b.stop().isEmpty && c.stop().isEmpty)
        let storeC = try Store(path: directory.path("c"))
        #expect(try sameRecords(a, storeC))
        // C's entries carry A as their origin, not B.
        let origins = Set(try storeC.journalEntries().compactMap { $0.origin?.storeID })
        #expect(origins == [a.id])
    }
}
