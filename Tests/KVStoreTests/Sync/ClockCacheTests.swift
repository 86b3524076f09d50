import Foundation
import LMDB
import Testing
import TestSupport
@_spi(Sync) @testable import KVStore

/// A store that does not sync finds its clock in the process's ``ClockCache`` after its own
/// commits — no read of meta or the journal — and reads it again whenever another writer may
/// have moved it: new journal entries, or a change of the sync configuration.
@Suite struct ClockCacheTests {
    let t: TemporaryStore
    var store: Store { t.store }
    let a = ref("item/a"), b = ref("item/b")

    init() throws {
        t = try TemporaryStore()
        try store.insert(["n": 0], as: a)
    }

    /// Writes to meta and the journal as another process would: straight through LMDB, beside
    /// any `WriteTransaction` of this process.
    private func writeAsAnotherProcess(_ body: (LMDB.Transaction, StoreDatabases) throws -> Void) throws {
        try store.environment.write { txn in try body(txn, store.databases) }
    }

    /// A far-ahead time, an hour past now.
    private var ahead: HybridTime { HybridTime(wall: nowMilliseconds() + 3_600_000, counter: 3) }

    @Test func aWriteAfterOwnCommitReadsNeitherMetaNorTheJournal() throws {
        // Damage what a recovery reads: the cache must not need it.
        let last = try store.lastSequence
        try writeAsAnotherProcess { txn, databases in
            try txn.put(StoreLayout.MetaKey.syncClock, [1, 2, 3], in: databases.meta)
            try txn.delete(StoreLayout.sequenceKey(last), in: databases.journal)
        }
        try store.setValue(1, forKey: "n", of: a)
        #expect(try store.lastStamp().wall <= nowMilliseconds())
    }

    @Test func entriesAnotherWriterJournaledMoveTheClock() throws {
        // Another process journals an entry stamped an hour ahead (a local clock gone ahead).
        let time = ahead
        try writeAsAnotherProcess { txn, databases in
            let sequence = try store.lastSequence + 1
            let entry = JournalEntry(sequence: sequence, commitID: sequence, timestamp: Date(), stamp: time, ref: b, keyPath: nil, change: .recordInserted, oldValue: nil, newValue: ["n": 1])
            try txn.put(StoreLayout.sequenceKey(sequence), JournalCodec.encode(entry), in: databases.journal)
            try txn.put(StoreLayout.MetaKey.lastSequence, StoreLayout.uint64(sequence), in: databases.meta)
        }
        try store.setValue(1, forKey: "n", of: a)
        #expect(try store.lastStamp().time == HybridTime(wall: time.wall, counter: time.counter + 1))
    }

    @Test func aStoreThatStartedSyncingReadsTheSavedClock() throws {
        // Another process turns sync on and adopts a remote time without journaling anything.
        let time = ahead, last = try store.lastSequence
        try store.write { try $0.setSyncConfiguration(SyncConfiguration(kinds: ["note"])) }
        try writeAsAnotherProcess { txn, databases in
            try txn.put(StoreLayout.MetaKey.syncClock, StoreLayout.uint64(time.packed) + StoreLayout.uint64(last), in: databases.meta)
        }
        try store.setValue(1, forKey: "n", of: a)
        #expect(try store.lastStamp().time == HybridTime(wall: time.wall, counter: time.counter + 1))
    }
}
