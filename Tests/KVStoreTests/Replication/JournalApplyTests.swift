import Foundation
import Testing
@testable import KVStore
import TestSupport

/// Applying a source's journal stream to a replica: exactly once, with origins, refusing gaps and
/// divergence.
@Suite struct JournalApplyTests {
    let source: TemporaryStore
    let replica: TemporaryStore

    init() throws {
        source = try TemporaryStore()
        replica = try TemporaryStore()
        try fillWithEveryChange(source.store)
    }

    @Test func theReplicaHoldsTheSourcesRecordsAndJournalsEachChangeWithItsOrigin() throws {
        let summary = try apply(exported(source.store), to: replica.store)
        #expect(try allRecords(replica.store) == allRecords(source.store))
        let sourceJournal = try source.store.journalEntries()
        let replicaJournal = try replica.store.journalEntries()
        #expect(summary == .init(applied: sourceJournal.count, skipped: 0, checkpoint: sourceJournal.last!.sequence))
        #expect(replicaJournal.map(\.origin) == sourceJournal.map { JournalOrigin(storeID: source.store.id, sequence: $0.sequence) })
        #expect(replicaJournal.map(\.change) == sourceJournal.map(\.change))
        #expect(replicaJournal.map(\.indexes) == sourceJournal.map(\.indexes))
        #expect(replicaJournal.map(\.newValue) == sourceJournal.map(\.newValue))
        // One commit id per source commit.
        #expect(replicaJournal.map(\.commitID) == sourceJournal.map(\.commitID))
        #expect(try replica.store.read { try $0.replicationCheckpoint(for: source.store.id) } == sourceJournal.last!.sequence)
    }

    /// An open-ended stream (a follow export) read from a pipe: each commit is applied once it has
    /// arrived and nothing more is there to read, not held back until 10,000 entries or the end.
    @Test func anOpenEndedStreamFromAPipeIsAppliedAsItsCommitsArrive() throws {
        let pipe = Pipe()
        let writer = try JournalStreamWriter(header: JournalStreamHeader(storeID: source.store.id, firstSequence: 1, lastSequence: nil)) {
            try pipe.fileHandleForWriting.write(contentsOf: $0)
        }
        let first = try #require(try source.store.journalEntries().first)
        try writer.append(first)
        try writer.endBatch()
        let applying = DispatchSemaphore(value: 0)
        let replica = replica.store
        Thread {
            _ = try? replica.applyJournal(JournalStreamReader(fileDescriptor: pipe.fileHandleForReading.fileDescriptor))
            applying.signal()
        }.start()
        let applied = waitUntil(timeout: 20) { (try? replica.record(first.ref)) != nil }
        try writer.finish()
        try pipe.fileHandleForWriting.close()
        #expect(applying.wait(timeout: .now() + 60) == .success)
        #expect(applied, "the commit was applied while the stream stayed open")
        #expect(try replica.read { try $0.replicationCheckpoint(for: source.store.id) } == 1)
    }

    @Test func aReplicaContinuesAfterTheSourceTruncatedEverythingItHadApplied() throws {
        try apply(exported(source.store), to: replica.store)
        let last = try source.store.read { try $0.lastSequence() }
        try source.store.truncateJournal(before: last + 1)
        let empty = try apply(exported(source.store), to: replica.store)   // starts at last + 1, holds nothing
        #expect(empty == .init(applied: 0, skipped: 0, checkpoint: last))
        try source.store.setValue("again", forKey: "name", of: ref("person/bob"))
        let more = try apply(exported(source.store), to: replica.store)
        #expect(more == .init(applied: 1, skipped: 0, checkpoint: last + 1))
        #expect(try allRecords(replica.store) == allRecords(source.store))
        let fresh = try TemporaryStore()
        #expect(performing: { try apply(exported(source.store), to: fresh.store) }, throws: applyError(.gap, "source entries 1…\(last)"))
    }

    @Test func applyingTwiceChangesNothing() throws {
        let stream = try exported(source.store)
        try apply(stream, to: replica.store)
        let journal = try replica.store.journalEntries()
        let again = try apply(stream, to: replica.store)
        #expect(again.applied == 0 && again.skipped == journal.count)
        #expect(try replica.store.journalEntries() == journal)
    }

    @Test func aLaterExportContinuesWhereTheReplicaStopped() throws {
        try apply(exported(source.store), to: replica.store)
        let next = try source.store.read { try $0.lastSequence() } + 1
        try source.store.setValue(1816, forKey: "born", of: ref("person/ada"))
        try source.store.write { txn in try txn.mutableArray(forKey: "tags", of: ref("person/ada")).remove(at: 0) }
        // Overlapping and exact continuations both work.
        try apply(exported(source.store, since: next - 2), to: replica.store)
        #expect(try allRecords(replica.store) == allRecords(source.store))
        #expect(try replica.store.read { try $0.replicationCheckpoint(for: source.store.id) } == next + 1)
    }

    @Test func anExportSinceAPointPastTheLastEntryIsAnEmptyStreamAnUpToDateReplicaAccepts() throws {
        try apply(exported(source.store), to: replica.store)
        let last = try source.store.read { try $0.lastSequence() }
        let empty = try JournalStreamReader(bytes: exported(source.store, since: last + 5))
        #expect(empty.header.firstSequence == last + 1 && empty.header.lastSequence == last)
        let summary = try apply(exported(source.store, since: last + 5), to: replica.store)
        #expect(summary.applied == 0 && summary.checkpoint == last)
    }

    @Test func aStreamStartingAfterTheCheckpointIsAGap() throws {
        let last = try source.store.read { try $0.lastSequence() }
        try apply(exported(source.store, since: 1), to: replica.store)
        try source.store.setValue(1, forKey: "x", of: ref("person/bob"))
        try source.store.setValue(2, forKey: "x", of: ref("person/bob"))
        let journal = try replica.store.journalEntries()
        #expect(performing: { try apply(exported(source.store, since: last + 2), to: replica.store) }, throws: applyError(.gap))
        #expect(try replica.store.journalEntries() == journal)
        let fresh = try TemporaryStore()
        #expect(performing: { try apply(exported(source.store, since: 2), to: fresh.store) }, throws: applyError(.gap))
    }

    @Test func aReplicaThatDivergedRefusesTheWholeCommit() throws {
        try replica.store.insert(["name": "Someone else"], as: ref("person/bob"))
        let before = try allRecords(replica.store)
        #expect(performing: { try apply(exported(source.store), to: replica.store) },
                throws: applyError(.diverged, "diverged at source sequence 2 (recordInserted of person/bob): person/bob to insert already exists"))
        #expect(try allRecords(replica.store) == before)
        #expect(try replica.store.read { try $0.replicationCheckpoint(for: source.store.id) } == 0)
    }

    @Test func outOfRangeIndexesAndMissingRecordsAreDivergence() throws {
        try apply(exported(source.store, through: 2), to: replica.store)
        try replica.store.promote()  // local writes make the divergence
        try replica.store.setValue([], forKey: "tags", of: ref("person/ada"))
        #expect(performing: { try apply(exported(source.store, since: 3), to: replica.store) },
                throws: applyError(.diverged, "index 1 is out of range for the 0 elements of 'tags'"))
        try replica.store.delete(ref("person/bob"))
        try replica.store.setValue(["poet"], forKey: "tags", of: ref("person/ada"))
        #expect(performing: { try apply(exported(source.store, since: 3), to: replica.store) },
                throws: applyError(.diverged, "person/bob to change does not exist"))
    }

    @Test func originNamesTheOriginalStoreAlongAChainAndChangesDoNotLoopBack() throws {
        let c = try TemporaryStore()
        try apply(exported(source.store), to: replica.store)
        try apply(exported(replica.store), to: c.store)
        #expect(try allRecords(c.store) == allRecords(source.store))
        let origins = try c.store.journalEntries().map(\.origin)
        #expect(origins == (try source.store.journalEntries().map { JournalOrigin(storeID: source.store.id, sequence: $0.sequence) }))
        // C's journal applied back to the source: every entry originated there, so nothing changes.
        let journal = try source.store.journalEntries()
        let back = try apply(exported(c.store), to: source.store)
        #expect(back.applied == 0 && back.skipped == journal.count)
        #expect(try source.store.journalEntries() == journal)
        // A change made on C (promoted: a replica refuses local writes) does travel to the
        // source, and only it.
        try c.store.promote()
        try c.store.setValue("from C", forKey: "note", of: ref("person/bob"))
        let onward = try apply(exported(c.store), to: source.store)
        #expect(onward.applied == 1)
        #expect(try source.store.value(forKey: "note", of: ref("person/bob")) == "from C")
    }

    @Test func aStoreCannotApplyItsOwnJournal() throws {
        #expect(performing: { try apply(exported(source.store), to: source.store) }, throws: applyError(.sameStore))
    }

    /// Validators are per process: the source ran its own. (The replica's kind catalog applies:
    /// see KindCatalogReplicationTests.)
    @Test func validatorsOfTheReplicaAreNotRunAgainAndDerivedEntriesAreSkipped() throws {
        var person = try Kind("person")
        person.validators["name"] = { _, _, _ in throw KeyValueCodingError.validationFailed(key: "name", reason: "no", ref: ref("person/x")) }
        var options = Store.Options.testing
        options.validatesOnSet = true
        let strict = try TemporaryStore(options: options, kinds: [person])
        try source.store.write { txn in
            try txn.willChangeValue(forKey: "address.city", of: ref("person/ada"))
            try txn.setValue(["city": "Rome"], forKey: "address", of: ref("person/ada"))
            try txn.didChangeValue(forKey: "address.city", of: ref("person/ada"))
        }
        #expect(try source.store.journalEntries().contains { $0.isDerived })
        try apply(exported(source.store), to: strict.store)
        #expect(try allRecords(strict.store) == allRecords(source.store))
        #expect(try !strict.store.journalEntries().contains { $0.isDerived })
    }
}
