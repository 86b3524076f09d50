import Foundation
import Testing
@testable import KVStore
import TestSupport

/// A store that was applied to is a replica: it refuses local writes until promoted, and records
/// its sources' positions (lag).
@Suite struct ReplicaRoleTests {
    let source: TemporaryStore
    let replica: TemporaryStore

    init() throws {
        source = try TemporaryStore()
        replica = try TemporaryStore()
        try fillWithEveryChange(source.store)
    }

    private func refused(_ replica: Store, source: UUID) -> @Sendable (any Error) -> Bool {
        let path = replica.path
        return { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .replica && error.description == "\(path): a replica of source \(source.uuidString.lowercased()): local writes are refused (kvstore promote \(path) makes it writable)"
        }
    }

    @Test func aStoreBecomesAReplicaWithTheFirstAppliedBatch() throws {
        #expect(try replica.store.read { try $0.replicationRole() } == .primary)
        #expect(try replica.store.replicaSource == nil)
        try apply(exported(source.store), to: replica.store)
        #expect(try replica.store.read { try $0.replicationRole() } == .replica(of: source.store.id))
        #expect(try replica.store.replicaSource == source.store.id)
    }

    @Test func anEmptyStreamDoesNotMakeAReplica() throws {
        let empty = try TemporaryStore()
        try apply(exported(empty.store), to: replica.store)
        #expect(try replica.store.read { try $0.replicationRole() } == .primary)
    }

    @Test func everyKindOfLocalRecordWriteIsRefusedAndChangesNothing() throws {
        try apply(exported(source.store), to: replica.store)
        let records = try allRecords(replica.store), journal = try replica.store.journalEntries()
        let r = replica.store, id = source.store.id
        #expect(performing: { try r.setValue("x", forKey: "name", of: ref("person/ada")) }, throws: refused(r, source: id))
        #expect(performing: { try r.setValue("x", forKeyPath: "address.city", of: ref("person/ada")) }, throws: refused(r, source: id))
        #expect(performing: { try r.insert(["a": 1], kind: "thing") }, throws: refused(r, source: id))
        #expect(performing: { try r.delete(ref("person/bob")) }, throws: refused(r, source: id))
        #expect(performing: { try r.removeValue(forKey: "name", of: ref("person/bob")) }, throws: refused(r, source: id))
        #expect(performing: { try r.write { try $0.mutableArray(forKey: "tags", of: ref("person/ada")).append("x") } }, throws: refused(r, source: id))
        #expect(try allRecords(r) == records)
        #expect(try r.journalEntries() == journal)
    }

    /// A merge that only adopts newer modification times (equal values) journals nothing, yet
    /// changes the replica's stamps: a local write all the same.
    @Test func aMergeThatOnlyAdoptsNewerStampsIsRefusedOnAReplica() throws {
        var note = try Kind("note")
        note.tracksModificationTimes = true
        var options = Store.Options.testing
        options.kinds = [note]
        let source = try TemporaryStore(options: options), replica = try TemporaryStore(options: options)
        let ada = ref("note/ada")
        try source.store.insert(["title": "a"], as: ada)
        try apply(exported(source.store), to: replica.store)
        let stamps = try replica.store.read { try $0.modificationTimes(of: ada) }
        let newer = StampedRecord(values: ["title": "a"], stamps: ["title": KeyStamp(time: Date().addingTimeInterval(60), origin: UUID())])
        #expect(performing: { try replica.store.merge(ada, from: newer) }, throws: refused(replica.store, source: source.store.id))
        #expect(try replica.store.read { try $0.modificationTimes(of: ada) } == stamps)
    }

    @Test func consumersAndJournalTruncationKeepWorkingOnAReplica() throws {
        try apply(exported(source.store), to: replica.store)
        let consumer = try replica.store.registerConsumer(named: "indexer", startingAfter: 0)
        let entries = try consumer.entries(limit: 3)
        try consumer.commit(through: entries.last!.sequence)
        #expect(try consumer.cursor() == entries.last!.sequence)
        #expect(try replica.store.truncateJournal(before: 2, force: true) == 1)
        try consumer.unregister()
    }

    @Test func appliesContinueOnAReplicaAfterItRefusedAWrite() throws {
        try apply(exported(source.store, through: 2), to: replica.store)
        #expect(throws: StoreError.self) { try replica.store.setValue(1, forKey: "x", of: ref("person/bob")) }
        try apply(exported(source.store, since: 3), to: replica.store)
        #expect(try allRecords(replica.store) == allRecords(source.store))
    }

    @Test func promotingMakesTheReplicaWritableOnceAndAPrimaryCannotBePromoted() throws {
        #expect(performing: { try replica.store.promote() }, throws: { ($0 as? StoreError)?.code == .notAReplica })
        try apply(exported(source.store), to: replica.store)
        #expect(try replica.store.promote())
        #expect(try !replica.store.promote())
        #expect(try replica.store.read { try $0.replicationRole() } == .promoted(from: source.store.id))
        #expect(try replica.store.replicaSource == nil)
        try replica.store.setValue("local", forKey: "note", of: ref("person/bob"))
        #expect(try replica.store.value(forKey: "note", of: ref("person/bob")) == "local")
        // The source's later changes still apply, and the store stays promoted.
        try source.store.setValue("later", forKey: "name", of: ref("person/bob"))
        let summary = try apply(exported(source.store), to: replica.store)
        #expect(summary.applied == 1)
        #expect(try replica.store.read { try $0.replicationRole() } == .promoted(from: source.store.id))
    }

    @Test func aReplicaOfOneSourceStaysSoWhenAnotherSourceIsApplied() throws {
        let other = try TemporaryStore()
        try other.store.insert(["name": "Zed"], as: ref("person/zed"))
        try apply(exported(source.store), to: replica.store)
        try apply(exported(other.store), to: replica.store)
        #expect(try replica.store.read { try $0.replicationRole() } == .replica(of: source.store.id))
        #expect(try replica.store.read { try $0.replicationSources() }.map(\.source).sorted { $0.uuidString < $1.uuidString }
            == [source.store.id, other.store.id].sorted { $0.uuidString < $1.uuidString })
    }

    @Test func theSourcesLastSequenceIsSavedWithTheCheckpointAndGivesTheLag() throws {
        let last = try source.store.read { try $0.lastSequence() }
        try apply(exported(source.store, through: 2), to: replica.store)
        #expect(try replica.store.read { try $0.replicationSources() } == [
            ReplicationSourceStatus(source: source.store.id, appliedSequence: 2, sourceLastSequence: 2),
        ])
        // A batch applied while the source is known to be further on: the lag shows.
        var batcher = JournalApplier.Batcher(
            applier: JournalApplier(store: replica.store, mode: .replica(source: source.store.id)), sourceLastSequence: last)
        try batcher.add(try source.store.journalEntries(from: 3, limit: 1))
        try batcher.flush()
        let status = try #require(try replica.store.read { try $0.replicationSources() }.first)
        #expect(status.appliedSequence == 3 && status.sourceLastSequence == last && status.lag == last - 3)
        // Unknown (an open-ended stream): the last known value stays.
        batcher.sourceLastSequence = nil
        try batcher.add(try source.store.journalEntries(from: 4, limit: 1))
        try batcher.flush()
        #expect(try replica.store.read { try $0.sourceLastSequence(for: source.store.id) } == last)
        // Never below what was applied.
        #expect(ReplicationSourceStatus(source: source.store.id, appliedSequence: 9, sourceLastSequence: 5).lag == 0)
        #expect(ReplicationSourceStatus(source: source.store.id, appliedSequence: 9, sourceLastSequence: nil).lag == nil)
    }

    /// An open-ended stream says nothing of the source's last sequence: a transport that knows it
    /// passes it live, and the lag shows it.
    @Test func anOpenEndedStreamTakesTheSourcesLivePosition() throws {
        var bytes: [UInt8] = []
        let writer = try JournalStreamWriter(header: JournalStreamHeader(storeID: source.store.id, firstSequence: 1, lastSequence: nil)) { bytes += $0 }
        try source.store.appendJournal(from: 1, through: 2, to: writer)
        try writer.finish()
        try replica.store.applyJournal(JournalStreamReader(bytes: bytes)) { _ in } sourceLastSequence: { 40 }
        #expect(try replica.store.read { try $0.replicationSources() } == [
            ReplicationSourceStatus(source: source.store.id, appliedSequence: 2, sourceLastSequence: 40),
        ])
        #expect(try replica.store.read { try $0.replicationSources() }.first?.lag == 38)
    }

    @Test func aWriteThatChangesNothingIsNotRefused() throws {
        try apply(exported(source.store), to: replica.store)
        let name = try replica.store.value(forKey: "name", of: ref("person/bob"))
        try replica.store.setValue(name, forKey: "name", of: ref("person/bob"))
    }
}
