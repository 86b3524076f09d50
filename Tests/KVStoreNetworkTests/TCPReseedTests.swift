import Foundation
import KVStore
import KVStoreNetwork
import Testing
import TestSupport

/// Snapshots over TCP: a replica behind the source's truncation point is reseeded, a new one can
/// start from a snapshot, and a client that does not accept snapshots is told why not.
@Suite(.tags(.network), .skippedByTag) struct TCPReseedTests {
    /// A source with 20 single-insert commits, a replica that applied the first 10, and the
    /// source's journal then truncated before 15.
    private func replicaBehindTheTruncationPoint(in directory: TemporaryDirectory) throws -> (Store, JournalServer) {
        let source = try directory.store("source")
        try commitItems(10, into: source)
        let server = try startedServer(source)
        try client(of: server, into: directory.path("replica")).run()
        try commitItems(10, startingAt: 10, into: source)
        _ = try source.truncateJournal(before: 15, force: true)
        return (source, server)
    }

    @Test func aReplicaBehindTheTruncationPointIsReseededFromASnapshot() throws {
        let directory = try TemporaryDirectory()
        let (source, server) = try replicaBehindTheTruncationPoint(in: directory)
        defer { server.stop() }
        try commitItems(2, startingAt: 20, into: source)

        let status = try client(of: server, into: directory.path("replica")).run()

        #expect(status.reseeds == 1 && status.appliedSequence == 22)
        let replica = try Store(path: directory.path("replica"))
        #expect(try sameRecords(source, replica))
        #expect(try checkpoint(of: replica, for: source) == 22)
        #expect(try replica.read { try $0.replicationRole() } == .replica(of: source.id))
        // No leftover snapshot file beside the replica.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["replica", "source"])
    }

    @Test func leftoversOfAReseedKilledMidwayAreRemovedByTheNextRun() throws {
        let directory = try TemporaryDirectory()
        let (_, server) = try replicaBehindTheTruncationPoint(in: directory)
        defer { server.stop() }
        let leftover = ".replica.snapshot-\(UUID().uuidString).mdb"   // what a SIGKILL mid-snapshot leaves
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory.path(leftover)))

        try client(of: server, into: directory.path("replica")).run()

        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["replica", "source"])
    }

    @Test func aFollowingReplicaBehindIsReseededAndFollowsOn() throws {
        let directory = try TemporaryDirectory()
        let (source, server) = try replicaBehindTheTruncationPoint(in: directory)
        defer { server.stop() }
        let following = FollowingClient(client(of: server, into: directory.path("replica"), follow: true))
        #expect(following.waitForCheckpoint(20))

        try commitItems(3, startingAt: 20, into: source)

        #expect(following.waitForCheckpoint(23))
        #expect(following.stop().isEmpty)
        #expect(following.status?.reseeds == 1)
        #expect(try sameRecords(source, Store(path: directory.path("replica"))))
    }

    @Test func aClientThatDoesNotReseedIsToldTheJournalWasTruncated() throws {
        let directory = try TemporaryDirectory()
        let (_, server) = try replicaBehindTheTruncationPoint(in: directory)
        defer { server.stop() }

        let error = #expect(throws: ReplicationConnectionError.self) {
            try client(of: server, into: directory.path("replica")) { $0.reseedWhenBehind = false }.run()
        }

        #expect(error?.code == .refused)
        #expect(error?.description == "tcp://127.0.0.1:\(server.port): journal truncated past 10: the source's journal starts at 15, the replica has applied through 10; reseed with --snapshot")
        #expect(try checkpoint(of: Store(path: directory.path("replica")), for: server.store) == 10)
    }

    @Test func aNewReplicaStartsFromASnapshotWhenAsked() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(12, into: source)
        let server = try startedServer(source)
        defer { server.stop() }

        let status = try client(of: server, into: directory.path("replica")) { $0.startFromSnapshot = true }.run()

        #expect(status.reseeds == 1 && status.applied == 0 && status.appliedSequence == 12)
        let replica = try Store(path: directory.path("replica"))
        #expect(try sameRecords(source, replica))
        #expect(try replica.journalEntries().isEmpty)   // the seeded journal starts after the snapshot
    }

    @Test func aNewReplicaOfATruncatedSourceStartsFromASnapshot() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(6, into: source)
        _ = try source.truncateJournal(before: 4)
        let server = try startedServer(source)
        defer { server.stop() }

        let status = try client(of: server, into: directory.path("replica")).run()

        #expect(status.reseeds == 1 && status.appliedSequence == 6)
        #expect(try sameRecords(source, Store(path: directory.path("replica"))))
    }
}
