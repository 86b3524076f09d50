import Foundation
import Testing
@testable import KVStore
import TestSupport

/// Snapshots of a store, and replicas seeded from them.
@Suite struct SnapshotSeedTests {
    let source: TemporaryStore
    let directory: TemporaryDirectory

    init() throws {
        source = try TemporaryStore()
        try fillWithEveryChange(source.store)
        directory = try TemporaryDirectory()
    }

    private func path(_ name: String) -> String { directory.path(name) }

    /// Writes `store`'s snapshot to a file and returns its path.
    private func snapshot(of store: Store, named name: String = "snapshot.mdb") throws -> String {
        let file = path(name)
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        #expect(fd >= 0)
        defer { close(fd) }
        try store.writeSnapshot(to: fd)
        return file
    }

    private func badSnapshot(_ text: String) -> @Sendable (any Error) -> Bool {
        { error in (error as? StoreError)?.code == .badSnapshot && "\(error)".contains(text) }
    }

    @Test func aSeededReplicaHoldsTheRecordsWithItsOwnIdAndContinuesFromTheSnapshot() throws {
        try source.store.registerConsumer(named: "indexer")
        let last = try source.store.read { try $0.lastSequence() }
        let replica = try Store.seedReplica(at: path("replica"), fromSnapshot: try snapshot(of: source.store))
        #expect(replica.id != source.store.id)
        #expect(try allRecords(replica) == allRecords(source.store))
        #expect(try replica.read { try $0.replicationRole() } == .replica(of: source.store.id))
        #expect(try replica.read { try $0.replicationSources() } == [
            ReplicationSourceStatus(source: source.store.id, appliedSequence: last, sourceLastSequence: last),
        ])
        #expect(try replica.journalEntries().isEmpty)
        #expect(try replica.read { try $0.lastSequence() } == last)
        #expect(try replica.consumers().isEmpty)
        let report = try replica.verify()
        #expect(report.isHealthy && !report.replayChecked)
        // Later source changes apply from the snapshot's sequence on.
        try source.store.setValue("later", forKey: "name", of: ref("person/bob"))
        #expect(performing: { try apply(exported(self.source.store, since: last + 2), to: replica) }, throws: applyError(.gap))
        let summary = try apply(exported(source.store, since: last + 1), to: replica)
        #expect(summary.applied == 1 && summary.checkpoint == last + 1)
        #expect(try allRecords(replica) == allRecords(source.store))
        #expect(try replica.verify().isHealthy)
        #expect(try replica.journalEntries().map(\.sequence) == [last + 1])
    }

    @Test func aReplicaOfAReplicaSeedsFromItsSnapshotAndKeepsOrigins() throws {
        let b = try Store.seedReplica(at: path("b"), fromSnapshot: try snapshot(of: source.store))
        try source.store.setValue("later", forKey: "name", of: ref("person/bob"))
        try apply(exported(source.store, since: try source.store.read { try $0.lastSequence() }), to: b)
        let c = try Store.seedReplica(at: path("c"), fromSnapshot: try snapshot(of: b, named: "b.mdb"))
        #expect(try c.read { try $0.replicationRole() } == .replica(of: b.id))
        #expect(try c.read { try $0.replicationSources() }.map(\.source) == [b.id])
        try source.store.setValue("even later", forKey: "name", of: ref("person/bob"))
        try apply(exported(source.store, since: try source.store.read { try $0.lastSequence() }), to: b)
        try apply(exported(b, since: try b.read { try $0.lastSequence() }), to: c)
        #expect(try allRecords(c) == allRecords(source.store))
        #expect(try c.journalEntries().map(\.origin?.storeID) == [source.store.id])
    }

    @Test func seedingReplacesAReplicaOfTheSameSourceWhole() throws {
        let replicaPath = path("replica")
        let old = try Store.seedReplica(at: replicaPath, fromSnapshot: try snapshot(of: source.store))
        let oldID = old.id
        try source.store.insert(["n": 1], as: ref("thing/1"))
        let again = try Store.seedReplica(at: replicaPath, fromSnapshot: try snapshot(of: source.store, named: "second.mdb"))
        #expect(again.id != oldID)
        #expect(try allRecords(again) == allRecords(source.store))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("seeding") }
        #expect(leftovers.isEmpty)
    }

    @Test func seedingOverAnythingButAReplicaOfTheSameSourceIsRefused() throws {
        let file = try snapshot(of: source.store)
        let other = try TemporaryStore()
        let otherRecords = try allRecords(other.store)
        #expect(performing: { try Store.seedReplica(at: other.path, fromSnapshot: file, options: .testing) },
                throws: badSnapshot("holds a store that is not a replica of source \(source.store.id.uuidString.lowercased()) (a primary store)"))
        #expect(try allRecords(other.store) == otherRecords)
        let notAStore = path("files")
        try FileManager.default.createDirectory(atPath: notAStore, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: notAStore + "/notes.txt", contents: Data("x".utf8))
        #expect(performing: { try Store.seedReplica(at: notAStore, fromSnapshot: file) }, throws: badSnapshot("cannot seed a replica there"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: notAStore) == ["notes.txt"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["files", "snapshot.mdb"])
    }

    @Test func aBadSnapshotIsOneClearErrorAndCreatesNothing() throws {
        let garbage = path("garbage.mdb")
        _ = FileManager.default.createFile(atPath: garbage, contents: Data(repeating: 0x5A, count: 64 * 1024))
        #expect(performing: { try Store.seedReplica(at: path("r1"), fromSnapshot: garbage) }, throws: badSnapshot("garbage.mdb is not a store's snapshot"))
        #expect(performing: { try Store.seedReplica(at: path("r2"), fromSnapshot: path("missing.mdb")) }, throws: badSnapshot("no snapshot file there"))
        #expect(performing: { try Store.seedReplica(at: path("r3"), fromSnapshot: directory.path) }, throws: badSnapshot("no snapshot file there"))
        let empty = path("empty.mdb")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        #expect(performing: { try Store.seedReplica(at: path("r4"), fromSnapshot: empty) }, throws: badSnapshot("is not a store's snapshot"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["empty.mdb", "garbage.mdb"])
    }

    @Test func aSnapshotToABadDescriptorFails() throws {
        #expect(performing: { try source.store.writeSnapshot(to: -1) }, throws: { ($0 as? StoreError)?.code == .storage })
    }

    @Test func aSnapshotOfAnEmptyStoreSeedsAnEmptyReplicaThatVerifies() throws {
        let empty = try TemporaryStore()
        let replica = try Store.seedReplica(at: path("replica"), fromSnapshot: try snapshot(of: empty.store))
        #expect(try replica.verify().isHealthy)
        #expect(try replica.read { try $0.replicationCheckpoint(for: empty.store.id) } == 0)
        try empty.store.insert(["a": 1], as: ref("thing/1"))
        try apply(exported(empty.store), to: replica)
        #expect(try allRecords(replica) == allRecords(empty.store))
        #expect(try replica.verify().isHealthy)
    }
}
