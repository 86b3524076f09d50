import Foundation
import Testing
@_spi(Sync) @testable import KVStore

/// Every journal entry carries its ``HybridTime``: strictly increasing in one store, recovered
/// from the journal (and meta) by every write, kept unchanged when applied elsewhere.
@Suite struct JournalStampTests {
    let t: TemporaryStore
    let ada = ref("person/ada")

    init() throws {
        t = try TemporaryStore()
    }

    /// The stamps of the store's entries, in journal order.
    private func stamps(_ store: Store, from sequence: UInt64 = 1) throws -> [HybridTime] {
        try store.journalEntries(from: sequence).map { try #require($0.stamp) }
    }

    /// A local entry stamped `time` (as if the clock had given it): the journal's last entry.
    private func journalLocal(at time: HybridTime, on clock: RecordRef = ref("clock/1")) throws {
        try t.store.write { txn in
            txn.appliedStamp = time
            defer { txn.appliedStamp = nil }
            if try txn.contains(clock) {
                try txn.setValue(.string(UUID().uuidString), forKey: "x", of: clock)
            } else {
                try txn.insert(["x": 1], as: clock)
            }
        }
    }

    @Test func everyEntryIsStampedInIncreasingOrder() throws {
        let before = HybridTime.milliseconds(Date())
        try t.store.insert(["name": "Ada"], as: ada)
        try t.store.write { txn in
            for i in 0 ..< 5 { try txn.setValue(.int(Int64(i)), forKey: "k\(i)", of: ada) }
            try txn.delete(ada)
            try txn.declare(Kind("note", keys: ["title": .string]))
        }
        let entries = try t.store.journalEntries()
        let times = try stamps(t.store)
        #expect(times.count == 8 && entries.last?.change == .kindDeclared)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect(times.allSatisfy { $0.wall >= before && $0.wall <= HybridTime.milliseconds(Date()) })
        // One transaction reads the time once: its entries share a wall and count up.
        let commit = Array(times.dropFirst())
        #expect(Set(commit.map(\.wall)).count == 1)
        #expect(zip(commit, commit.dropFirst()).allSatisfy { $1.counter == $0.counter + 1 })
        #expect(entries.allSatisfy { $0.syncStamp(localStore: t.store.id) == SyncStamp(time: $0.stamp!, store: t.store.id) })
    }

    @Test func theClockIsRecoveredFromTheLastEntry() throws {
        try t.store.insert(["name": "Ada"], as: ada)
        // A clock that ran ahead (an hour): later writes keep counting from there.
        let ahead = HybridTime(wall: HybridTime.milliseconds(Date()) + 3_600_000, counter: 7)
        try journalLocal(at: ahead)
        try t.store.setValue("B", forKey: "name", of: ada)
        let reopened = try Store(path: t.path, options: .testing)
        try reopened.setValue("C", forKey: "name", of: ada)
        #expect(try stamps(t.store, from: 3) == [HybridTime(wall: ahead.wall, counter: 8), HybridTime(wall: ahead.wall, counter: 9)])
    }

    @Test func aCounterThatOverflowsMovesToTheNextMillisecond() throws {
        try t.store.insert(["name": "Ada"], as: ada)
        let ahead = HybridTime(wall: HybridTime.milliseconds(Date()) + 3_600_000, counter: .max - 1)
        try journalLocal(at: ahead)
        try t.store.write { txn in
            try txn.setValue(1, forKey: "a", of: ada)
            try txn.setValue(2, forKey: "b", of: ada)
        }
        #expect(try stamps(t.store, from: 3) == [HybridTime(wall: ahead.wall, counter: .max), HybridTime(wall: ahead.wall + 1, counter: 0)])
    }

    @Test func anEntryWithoutAStampReadsAsItsTimestamp() throws {
        try t.store.insert(["name": "Ada"], as: ada)
        // An entry as an older kvstore wrote it: no stamp, a timestamp an hour ahead.
        let later = Date(timeIntervalSinceNow: 3600)
        let old = JournalEntry(sequence: 2, commitID: 2, timestamp: later, ref: ada, keyPath: "name", change: .setting, oldValue: "Ada", newValue: "Old")
        try t.store.write { txn in
            try txn.transaction.put(StoreLayout.sequenceKey(2), JournalCodec.encode(old), in: txn.databases.journal)
            try txn.transaction.put(StoreLayout.MetaKey.lastSequence, StoreLayout.uint64(2), in: txn.databases.meta)
            try txn.transaction.put(StoreLayout.MetaKey.lastCommit, StoreLayout.uint64(2), in: txn.databases.meta)
        }
        let read = try #require(try t.store.journalEntries(from: 2).first)
        #expect(read.stamp == nil && read.syncStamp(localStore: t.store.id) == SyncStamp(time: HybridTime(legacy: later), store: t.store.id))
        try t.store.setValue("New", forKey: "name", of: ada)
        #expect(try t.store.journalEntries(from: 3).first?.stamp == HybridTime(wall: HybridTime.milliseconds(later), counter: 1))
    }

    @Test func truncatingThroughTheLastEntryKeepsTheClock() throws {
        try t.store.insert(["name": "Ada"], as: ada)
        let ahead = HybridTime(wall: HybridTime.milliseconds(Date()) + 3_600_000, counter: 2)
        try journalLocal(at: ahead)
        let last = try t.store.read { try $0.lastSequence() }
        try t.store.truncateJournal(before: last + 1)
        #expect(try t.store.journalEntries().isEmpty)
        try t.store.setValue("B", forKey: "name", of: ada)
        #expect(try stamps(t.store) == [HybridTime(wall: ahead.wall, counter: 3)])
    }

    @Test func replicationKeepsTheSourcesStamps() throws {
        let source = try TemporaryStore()
        try fillWithEveryChange(source.store)
        let original = try source.store.journalEntries()
        #expect(original.allSatisfy { $0.stamp != nil })
        // Decoded (a journal stream), and with record insertions as their bytes (store to store).
        try apply(exported(source.store), to: t.store)
        let encoded = try TemporaryStore()
        let batch = try source.store.read { try $0.sourceEntries(after: 0, limit: .max) }
        #expect(batch.entries.contains { if case .encoded = $0.form { true } else { false } })
        var next = 0
        while next < batch.count {
            next = try JournalApplier(store: encoded.store, mode: .replica(source: source.store.id)).apply(batch, from: next).end
        }
        for replica in [t.store, encoded.store] {
            let replicated = try replica.journalEntries()
            #expect(replicated.map(\.stamp) == original.map(\.stamp))
            // Both ends name the same stamp: the change was made in the source.
            #expect(replicated.map { $0.syncStamp(localStore: replica.id) } == original.map { $0.syncStamp(localStore: source.store.id) })
        }
    }

    @Test func aRebuildStampsTheEntriesItMakesWithItsOwnClock() throws {
        let source = try TemporaryStore()
        try fillWithEveryChange(source.store)
        let ahead = HybridTime(wall: HybridTime.milliseconds(Date()) + 3_600_000, counter: 0)
        try journalLocal(at: ahead)  // this store's clock is an hour ahead
        let commits = Dictionary(grouping: try source.store.journalEntries(), by: \.commitID).sorted { $0.key < $1.key }.map(\.value)
        let last = try t.store.read { try $0.lastSequence() }
        _ = try JournalApplier(store: t.store, mode: .rebuild).apply(commits[...])
        #expect(try stamps(t.store, from: last + 1).allSatisfy { $0 > ahead })
        #expect(try t.store.verify().isHealthy)
    }

    @Test func replicatingAnEntryWithoutAStampStampsItWithItsTimestamp() throws {
        let source = try TemporaryStore()
        try source.store.insert(["name": "Ada"], as: ada)
        try source.store.setValue("B", forKey: "name", of: ada)
        // Both entries as an older kvstore wrote them.
        var legacy = try source.store.journalEntries()
        for index in legacy.indices { legacy[index].stamp = nil }
        var bytes: [UInt8] = []
        let writer = try JournalStreamWriter(header: JournalStreamHeader(storeID: source.store.id, firstSequence: 1, lastSequence: 2)) { bytes += $0 }
        for entry in legacy { try writer.append(entry) }
        try writer.finish()
        let stream = try JournalStreamReader(bytes: bytes)
        #expect(try stream.nextCommit()?.map(\.stamp) == [nil])
        try apply(bytes, to: t.store)
        #expect(try stamps(t.store) == legacy.map { HybridTime(legacy: $0.timestamp) })
    }

    @Test func theStampIsInTheEntrysDictionaryAndStream() throws {
        try t.store.insert(["name": "Ada"], as: ada)
        let entry = try #require(try t.store.journalEntries().first)
        let stamp = try #require(entry.stamp)
        #expect(entry.dictionary["stamp"] == .int(Int64(stamp.packed)))
        #expect(try JournalEntry(dictionary: entry.dictionary) == entry)
        #expect(JournalCodec.encode(entry) == RecordCodec.encode(entry.dictionary))
        let reader = try JournalStreamReader(bytes: exported(t.store))
        #expect(try reader.nextCommit() == [entry])
        var unstamped = entry.dictionary
        unstamped["stamp"] = nil
        #expect(try JournalEntry(dictionary: unstamped).stamp == nil)
        unstamped["stamp"] = "soon"
        #expect(throws: JournalFormatError.self) { try JournalEntry(dictionary: unstamped) }
    }

    @Test func verifyFindsAClockThatWentBack() throws {
        try t.store.insert(["name": "Ada"], as: ada)
        try t.store.setValue("B", forKey: "name", of: ada)
        #expect(try t.store.verify().isHealthy)
        let first = try #require(try t.store.journalEntries().first?.stamp)
        // Another record's entry at an earlier time is no finding: stamps increase per record.
        try journalLocal(at: first)
        #expect(try t.store.verify().isHealthy)
        try journalLocal(at: first, on: ada)
        let findings = try t.store.verify().findings
        #expect(findings == ["journal entry 4 has stamp \(first), not after the stamp \(try stamps(t.store)[1]) of entry 2 of the same record person/ada: the store's clock went back"])
    }

    /// Entries an older kvstore wrote in one commit share one time; applied to a kind that syncs,
    /// the later one of a record still wins, as the journal orders them.
    @Test(arguments: [true, false])
    func applyingOneCommitOfEntriesWithoutStampsToAKindThatSyncs(reinserting: Bool) throws {
        let source = try TemporaryStore(), note = ref("note/1")
        try source.store.insert(["a": 1, "c": 0], as: note)
        try source.store.write { txn in
            if reinserting {
                try txn.delete(note)
                try txn.insert(["b": 2], as: note)
            } else {
                try txn.setValue(3, forKey: "a", of: note)
                try txn.removeValue(forKey: "a", of: note)
            }
        }
        var legacy = try source.store.journalEntries()
        for index in legacy.indices {
            legacy[index].stamp = nil
            legacy[index].timestamp = legacy[0].timestamp  // one millisecond, as a fast writer's
        }
        var bytes: [UInt8] = []
        let writer = try JournalStreamWriter(header: JournalStreamHeader(storeID: source.store.id, firstSequence: 1, lastSequence: UInt64(legacy.count))) { bytes += $0 }
        for entry in legacy { try writer.append(entry) }
        try writer.finish()
        let target = try TemporaryStore.syncing()
        try apply(bytes, to: target.store)
        #expect(try target.store.record(note) == (reinserting ? ["b": 2] : ["c": 0]))
        #expect(try target.store.verify().findings == [])
    }
}
