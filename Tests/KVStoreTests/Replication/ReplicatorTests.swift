import Foundation
import Testing
@testable import KVStore
import LMDB
import TestSupport

/// The store-to-store replicator: exactly-once catch-up, follow mode, chains, reseeding.
@Suite struct ReplicatorTests {
    let source: TemporaryStore
    let directory: TemporaryDirectory

    init() throws {
        source = try TemporaryStore()
        try fillWithEveryChange(source.store)
        directory = try TemporaryDirectory()
    }

    private func path(_ name: String) -> String { directory.path(name) }

    private func replicator(_ name: String = "replica", from store: Store? = nil, _ configure: (inout Replicator.Options) -> Void = { _ in }) -> Replicator {
        var options = Replicator.Options.testing
        configure(&options)
        return Replicator(source: store ?? source.store, replicaPath: path(name), options: options)
    }

    @Test func aNewReplicaGetsEveryChangeWithOriginsOnceAndVerifies() throws {
        let last = try source.store.read { try $0.lastSequence() }
        let status = try replicator().run()
        let replica = try Store(path: path("replica"), options: .testing)
        #expect(status.applied == Int(last) && status.skipped == 0 && status.appliedSequence == last)
        #expect(status.sourceLastSequence == last && status.lag == 0 && status.reseeds == 0)
        #expect(status.source == source.store.id && status.replica == replica.id)
        #expect(try allRecords(replica) == allRecords(source.store))
        let sourceJournal = try source.store.journalEntries()
        #expect(try replica.journalEntries().map(\.origin) == sourceJournal.map { JournalOrigin(storeID: source.store.id, sequence: $0.sequence) })
        #expect(try replica.journalEntries().map(\.commitID) == sourceJournal.map(\.commitID))
        #expect(try replica.read { try $0.replicationRole() } == .replica(of: source.store.id))
        #expect(try replica.verify().isHealthy)
        // Again: nothing new, nothing applied.
        let again = try replicator().run()
        #expect(again.applied == 0 && again.appliedSequence == last)
        // Later commits continue from the checkpoint.
        try source.store.setValue("later", forKey: "name", of: ref("person/bob"))
        #expect(try replicator().run().applied == 1)
        #expect(try allRecords(replica) == allRecords(source.store))
    }

    /// A replica made of a source with nothing in its journal yet is a replica all the same: it
    /// refuses local writes (they would diverge from the source's first changes) and reports its lag.
    @Test func aNewReplicaOfAnEmptySourceIsAReplica() throws {
        let empty = try TemporaryStore()
        let status = try replicator(from: empty.store).run()
        #expect(status.applied == 0 && status.appliedSequence == 0)
        let replica = try Store(path: path("replica"), options: .testing)
        #expect(try replica.read { try $0.replicationRole() } == .replica(of: empty.store.id))
        #expect(try replica.read { try $0.replicationSources() } == [
            ReplicationSourceStatus(source: empty.store.id, appliedSequence: 0, sourceLastSequence: 0),
        ])
        #expect(performing: { try replica.insert(["n": 1], as: ref("thing/1")) }, throws: { ($0 as? StoreError)?.code == .replica })
        try empty.store.insert(["n": 2], as: ref("thing/1"))
        #expect(try replicator(from: empty.store).run().applied == 1)
        #expect(try allRecords(replica) == allRecords(empty.store))
    }

    /// A run killed while reseeding leaves its snapshot and the store it was building beside the
    /// replica (hidden, named after it); the next run removes them, but not those a live run
    /// holds locked, nor anything else.
    @Test func leftoversOfAKilledReseedAreRemovedByTheNextRun() throws {
        let leftovers = [".replica.snapshot-\(UUID().uuidString).mdb", ".replica.seeding-\(UUID().uuidString)", ".replica.seeding-\(UUID().uuidString).old"]
        try Data("x".utf8).write(to: URL(fileURLWithPath: path(leftovers[0])))
        for name in leftovers.dropFirst() {
            try FileManager.default.createDirectory(atPath: path(name), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: path(name) + "/data.mdb"))
        }
        let inUse = ".replica.snapshot-\(UUID().uuidString).mdb", kept = [".replica.notes", ".other.seeding-\(UUID().uuidString)", inUse]
        for name in kept { try Data("x".utf8).write(to: URL(fileURLWithPath: path(name))) }
        let held = open(path(inUse), O_RDONLY | O_CLOEXEC)
        defer { close(held) }
        #expect(flock(held, LOCK_EX) == 0)
        try replicator { $0.seedsFromSnapshot = true }.run()
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: directory.path)) == Set(kept + ["replica"]))
    }

    @Test func smallBatchesNeverSplitACommit() throws {
        try source.store.write { txn in
            for i in 0..<7 { try txn.insert(["i": .int(Int64(i))], as: ref("thing/\(i)")) }
        }
        let applied = Received<Int>()
        let status = try replicator { $0.batchLimit = 3 }.run { applied.add($0.applied) }
        let replica = try Store(path: path("replica"), options: .testing)
        #expect(try allRecords(replica) == allRecords(source.store))
        #expect(try replica.journalEntries().map(\.commitID) == source.store.journalEntries().map(\.commitID))
        #expect(status.applied == (try source.store.journalEntries().count))
        #expect(applied.count > 2)
    }

    /// The last commit fills the last batch exactly: it is held back as possibly cut, then applied
    /// once the next read finds nothing after it.
    @Test func aLastCommitFillingTheBatchExactlyIsApplied() throws {
        let source = try TemporaryStore()
        for commit in 0..<3 {
            try source.store.write { txn in
                for i in 0..<4 { try txn.insert(["i": .int(Int64(i))], as: ref("thing/\(commit)-\(i)")) }
            }
        }
        let status = try replicator(from: source.store) { $0.batchLimit = 4 }.run()
        #expect(status.applied == 12 && status.appliedSequence == 12)
        #expect(try allRecords(Store(path: path("replica"), options: .testing)) == allRecords(source.store))
        let following = replicator("following", from: source.store) { $0.batchLimit = 4; $0.follow = true }
        let done = waitUntilApplied(following, through: 12)
        #expect(done)
    }

    /// Runs `replicator` (following) on a thread until it applied through `sequence`, then stops it.
    private func waitUntilApplied(_ replicator: Replicator, through sequence: UInt64) -> Bool {
        let reached = Flag()
        let ended = DispatchSemaphore(value: 0)
        Thread {
            _ = try? replicator.run { if $0.appliedSequence >= sequence { reached.set(); replicator.stop() } }
            ended.signal()
        }.start()
        let finished = waitUntil { reached.isSet }
        replicator.stop()
        _ = ended.wait(timeout: .now() + 60)
        return finished
    }

    @Test func followModePicksUpCommitsFromAnotherThreadUntilStopped() throws {
        let follower = replicator { $0.follow = true }
        let ended = DispatchSemaphore(value: 0)
        let failures = Failures()
        let statuses = Received<Replicator.Status>()
        Thread {
            do { try follower.run { statuses.add($0) } } catch { failures.add("\(error)") }
            ended.signal()
        }.start()
        let source = source.store
        try source.insert(["count": -1], as: ref("counter/1"))
        let written = DispatchSemaphore(value: 0)
        let writer = Thread {
            for i in 0..<50 {
                do { try source.setValue(.int(Int64(i)), forKey: "count", of: ref("counter/1")) } catch { failures.add("\(error)") }
            }
            written.signal()
        }
        writer.start()
        // The writer done first: the source's last sequence is then final, whatever the fixture holds.
        #expect(written.wait(timeout: .now() + 60) == .success)
        let last = try source.read { try $0.lastSequence() }
        let caughtUp = waitUntil { statuses.all.last.map { $0.appliedSequence == last } ?? false }
        follower.stop()
        #expect(ended.wait(timeout: .now() + 60) == .success)
        #expect(caughtUp)
        #expect(failures.all == [])
        let replica = try Store(path: path("replica"), options: .testing)
        #expect(try allRecords(replica) == allRecords(source))
        #expect(try replica.value(forKey: "count", of: ref("counter/1")) == 49)
    }

    @Test func observersOfTheReplicaSeeEachSourceCommit() throws {
        try replicator().run()
        let replica = try Store(path: path("replica"), options: .testing)
        let seen = Received<Value?>()
        let token = try replica.observe(ref("person/bob"), keyPath: "name") { seen.add($0.newValue) }
        try source.store.setValue("one", forKey: "name", of: ref("person/bob"))
        try source.store.setValue("two", forKey: "name", of: ref("person/bob"))
        try replicator().run()
        #expect(seen.all == ["one", "two"])
        token.cancel()
    }

    @Test func aChainKeepsOriginsAndNothingLoopsBack() throws {
        try replicator("b").run()
        let b = try Store(path: path("b"), options: .testing)
        try replicator("c", from: b).run()
        let c = try Store(path: path("c"), options: .testing)
        #expect(try allRecords(c) == allRecords(source.store))
        #expect(try c.journalEntries().map(\.origin?.storeID) == Array(repeating: source.store.id, count: try source.store.journalEntries().count))
        #expect(try c.read { try $0.replicationRole() } == .replica(of: b.id))
        // C's journal replicated back into a promoted copy of the source: everything originated there.
        try c.promote()
        try c.setValue("from C", forKey: "note", of: ref("person/bob"))
        try source.store.write { _ in }  // nothing
        let back = Replicator(source: c, replicaPath: source.path, options: .testing)
        let status = try back.run()
        #expect(status.applied == 1)
        #expect(try source.store.value(forKey: "note", of: ref("person/bob")) == "from C")
    }

    @Test func aReplicaBehindTheTruncationPointIsSeededAgainAndContinues() throws {
        try replicator().run()
        let first = try Store(path: path("replica"), options: .testing).id
        try source.store.setValue("a", forKey: "x", of: ref("person/bob"))
        try source.store.setValue("b", forKey: "x", of: ref("person/bob"))
        let last = try source.store.read { try $0.lastSequence() }
        try source.store.truncateJournal(before: last)
        let status = try replicator().run()
        #expect(status.reseeds == 1 && status.replica != first && status.appliedSequence == last)
        let replica = try Store(path: path("replica"), options: .testing)
        #expect(replica.id == status.replica)
        #expect(try allRecords(replica) == allRecords(source.store))
        #expect(try replica.verify().isHealthy)
        try source.store.setValue("c", forKey: "x", of: ref("person/bob"))
        let next = try replicator().run()
        #expect(next.reseeds == 0 && next.applied == 1)
        #expect(try allRecords(replica) == allRecords(source.store))
        #expect(try replica.verify().isHealthy)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["replica"])
    }

    @Test func aNewReplicaIsSeededFromASnapshotWhenAskedOrWhenTheSourceIsTruncated() throws {
        let last = try source.store.read { try $0.lastSequence() }
        let asked = try replicator("asked") { $0.seedsFromSnapshot = true }.run()
        #expect(asked.reseeds == 1 && asked.applied == 0 && asked.appliedSequence == last)
        #expect(try Store(path: path("asked"), options: .testing).journalEntries().isEmpty)
        try source.store.truncateJournal(before: 3)
        let truncated = try replicator("truncated").run()
        #expect(truncated.reseeds == 1 && truncated.appliedSequence == last)
        for name in ["asked", "truncated"] {
            let replica = try Store(path: path(name), options: .testing)
            #expect(try allRecords(replica) == allRecords(source.store))
            #expect(try replica.verify().isHealthy)
        }
    }

    @Test func reseedingDoesNotReplaceAPromotedStore() throws {
        try replicator().run()
        try Store(path: path("replica"), options: .testing).promote()
        try source.store.setValue("a", forKey: "x", of: ref("person/bob"))
        try source.store.truncateJournal(before: try source.store.read { try $0.lastSequence() } + 1)
        #expect(performing: { try replicator().run() }, throws: { ($0 as? StoreError)?.code == .badSnapshot && "\($0)".contains("a promoted replica of") })
        #expect(try Store(path: path("replica"), options: .testing).read { try $0.replicationRole() } == .promoted(from: source.store.id))
    }

    @Test func aStoreCannotReplicateIntoItself() throws {
        let itself = Replicator(source: source.store, replicaPath: source.path, options: .testing)
        #expect(performing: { try itself.run() }, throws: applyError(.sameStore))
    }
}

extension ReplicatorTests {
    /// A replicator killed while creating the replica leaves only the store's hidden building
    /// directory (see `StoreCreation`): the next run makes the store. An LMDB environment with
    /// nothing in it is no interrupted creation and is refused, never made a replica.
    @Test func aReplicaWhoseCreationWasInterruptedIsMadeOnTheNextRun() throws {
        let leftover = path("replica") + "/.kvstore-creating-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: leftover, withIntermediateDirectories: true)
        try LMDB.Environment.open(path: leftover).sync()  // data.mdb and lock.mdb, no transaction
        let status = try replicator().run()
        #expect(status.applied == (try source.store.journalEntries().count))
        #expect(try allRecords(Store(path: path("replica"), options: .testing)) == allRecords(source.store))
        #expect(!FileManager.default.fileExists(atPath: leftover))
        try FileManager.default.createDirectory(atPath: path("empty"), withIntermediateDirectories: true)
        try LMDB.Environment.open(path: path("empty")).sync()
        #expect(performing: { try replicator("empty").run() }, throws: { ($0 as? StoreError)?.code == .notAStore })
        // A directory with other files and no data file is not taken over.
        try FileManager.default.createDirectory(atPath: path("notes"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path("notes") + "/a.txt", contents: Data("x".utf8))
        #expect(performing: { try replicator("notes").run() }, throws: { ($0 as? StoreError)?.code == .notAStore })
    }
}
