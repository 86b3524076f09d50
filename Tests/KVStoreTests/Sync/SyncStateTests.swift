import Foundation
import Testing
import TestSupport
@testable import KVStore

/// The `sync` database: the per-key last-writer-wins state every local write path keeps, in its
/// own transaction, for the kinds a store syncs (meta `sync/config`) — and only for those.
@Suite struct SyncStateTests {
    let t: TemporaryStore
    let note = ref("note/1")

    init() throws {
        t = try TemporaryStore()
    }

    private func enable(_ kinds: Set<String>? = ["note"]) throws {
        try t.store.write { try $0.setSyncConfiguration(SyncConfiguration(kinds: kinds)) }
    }

    private func state(_ ref: RecordRef) throws -> SyncRecordState {
        try t.store.read { try $0.syncState(of: ref) }
    }

    /// Every entry of the `sync` database, as key bytes.
    private func syncKeys() throws -> [[UInt8]] {
        try t.store.read { txn in
            var keys: [[UInt8]] = []
            try txn.transaction.scan(try #require(txn.databases.sync)) { key, _ in keys.append(Array(key)); return true }
            return keys
        }
    }

    private func lastStamp() throws -> SyncStamp {
        try #require(try t.store.journalEntries().last).syncStamp(localStore: t.store.id)
    }

    private func format() throws -> UInt32? {
        try t.store.read { try $0.transaction.withValue(forKey: StoreLayout.MetaKey.format, in: $0.databases.meta, StoreLayout.uint32(from:)) }
    }

    @Test func aStoreThatDoesNotSyncKeepsNoState() throws {
        try t.store.insert(["title": "a", "tags": ["x"]], as: note)
        try t.store.setValue("b", forKey: "title", of: note)
        try t.store.delete(note)
        #expect(try syncKeys().isEmpty)
        #expect(try t.store.read { try $0.kindCatalog().sync } == nil)
        #expect(try format() == StoreLayout.formatVersion)
    }

    @Test func everyLocalWritePathKeepsTheStateOfASyncedKind() throws {
        try enable()
        #expect(try format() == StoreLayout.syncFormatVersion)
        try t.store.insert(["title": "a", "tags": ["x"], "meta": ["n": 1]], as: note)
        let inserted = try lastStamp()
        #expect(try state(note) == SyncRecordState(created: inserted, deleted: nil, keys: [
            "title": .init(stamp: inserted, isSet: true), "tags": .init(stamp: inserted, isSet: true), "meta": .init(stamp: inserted, isSet: true)]))
        try t.store.setValue("b", forKey: "title", of: note)
        #expect(try state(note).keys["title"] == .init(stamp: lastStamp(), isSet: true))
        try t.store.write { try $0.setValue(2, forKeyPath: "meta.n", of: note) }
        #expect(try state(note).keys["meta"] == .init(stamp: lastStamp(), isSet: true))
        try t.store.write { try $0.mutableArray(forKey: "tags", of: note).append("y") }
        #expect(try state(note).keys["tags"] == .init(stamp: lastStamp(), isSet: true))
        try t.store.removeValue(forKey: "title", of: note)
        #expect(try state(note).keys["title"] == .init(stamp: lastStamp(), isSet: false))
        #expect(try state(note).exists && !state(note).isPresent("title") && state(note).isPresent("tags"))
        #expect(try t.store.verify().isHealthy)
        try t.store.delete(note)
        #expect(try state(note) == SyncRecordState(created: inserted, deleted: lastStamp(), keys: [:]))
        #expect(try !state(note).exists)
        try t.store.insert(["title": "again"], as: note)
        #expect(try state(note).exists && state(note).isPresent("title"))
        #expect(try t.store.verify().isHealthy)
    }

    @Test func kindsThatDoNotSyncKeepNoState() throws {
        try enable()
        try t.store.insert(["name": "Ada"], as: ref("person/ada"))
        try t.store.setValue("B", forKey: "name", of: ref("person/ada"))
        #expect(try syncKeys().isEmpty)
    }

    @Test func withoutKindsNamedEveryKindSyncs() throws {
        try enable(nil)
        #expect(try t.store.read { try $0.kindCatalog().sync } == SyncConfiguration(kinds: nil))
        try t.store.insert(["name": "Ada"], as: ref("person/ada"))
        try t.store.insert(["title": "a"], as: note)
        #expect(try state(ref("person/ada")).exists && state(note).exists)
    }

    @Test func aLocalChangeWinsOverAStampFromAClockFarAhead() throws {
        try enable()
        try t.store.insert(["title": "a"], as: note)
        // Another store's change, stamped a day ahead (a clock the sync did not adopt).
        let other = UUID()
        let ahead = SyncStamp(time: HybridTime(wall: HybridTime.milliseconds(Date()) + 86_400_000, counter: 5), store: other)
        try t.store.write { txn in
            var state = try txn.syncState(of: note)
            let old = state
            state.apply(.key("title", isSet: true), stamp: ahead)
            try txn.saveSyncState(state, was: old, of: note)
        }
        try t.store.setValue("mine", forKey: "other", of: note)
        let stamp = try lastStamp()
        #expect(stamp > ahead && stamp.store == t.store.id)
        #expect(try state(note).isPresent("other"))
        // The clock did not follow: another record's entry keeps this machine's time.
        try t.store.insert(["x": 1], as: ref("person/1"))
        #expect(try lastStamp().wall < ahead.wall - 80_000_000)
    }

    @Test func enablingAKindThatHasRecordsIsRefused() throws {
        try t.store.insert(["title": "a"], as: note)
        #expect(performing: { try enable() }, throws: { ($0 as? SyncStateError)?.code == .existingRecords && "\($0)".contains("kind 'note' has 1 record already") })
        #expect(try t.store.read { try $0.kindCatalog().sync } == nil)
        #expect(try format() == StoreLayout.formatVersion)
        try enable(["other"])  // a kind without records may start
        #expect(performing: { try enable(nil) }, throws: { ($0 as? SyncStateError)?.code == .existingRecords })
    }

    @Test func aKindThatStopsSyncingLosesItsState() throws {
        try enable(["note", "task"])
        try t.store.insert(["title": "a"], as: note)
        try t.store.insert(["title": "b"], as: ref("task/1"))
        try enable(["task"])
        #expect(try syncKeys().allSatisfy { $0.starts(with: Array("task".utf8) + [0]) } && !syncKeys().isEmpty)
        #expect(try t.store.verify().isHealthy)
        try t.store.write { try $0.setSyncConfiguration(nil) }
        #expect(try syncKeys().isEmpty && t.store.read { try $0.kindCatalog().sync } == nil)
        #expect(try format() == StoreLayout.syncFormatVersion)  // a format once raised stays
    }

    @Test func anotherProcessSeesTheConfigurationChange() throws {
        let other = try Store(path: t.path, options: .testing)
        #expect(try other.read { try $0.kindCatalog().sync } == nil)
        try enable()
        try other.insert(["title": "a"], as: note)
        #expect(try state(note).exists)
    }

    @Test func verifyComparesTheStateWithTheRecords() throws {
        try enable()
        try t.store.insert(["title": "a", "body": "b"], as: note)
        try t.store.insert(["title": "c"], as: ref("note/2"))
        try t.store.removeValue(forKey: "body", of: note)
        #expect(try t.store.verify().isHealthy)
        let later = SyncStamp(time: HybridTime(wall: HybridTime.milliseconds(Date()) + 60_000, counter: 0), store: t.store.id)
        try t.store.write { txn in
            let db = try #require(txn.databases.sync)
            try txn.transaction.delete(SyncStateStorage.key("title", of: note), in: db)                       // a held key without a stamp
            try txn.transaction.put(SyncStateStorage.key("body", of: note), SyncStateStorage.encode(.init(stamp: later, isSet: true)), in: db)  // a set for a key not held
            try txn.transaction.delete(SyncStateStorage.prefix(ref("note/2")), in: db)                           // a record without created
            try txn.transaction.delete(SyncStateStorage.key("title", of: ref("note/2")), in: db)
            try txn.transaction.put(SyncStateStorage.prefix(ref("note/3")), [9], in: db)                         // damaged, of no record
        }
        #expect(try t.store.verify().findings == [
            "the sync state of note/1 says key 'body' is present (set at \(later)), but the record does not hold it",
            "record note/1 holds key 'title', which its sync state says is absent (no stamp)",
            "the sync state of note/3 is corrupt",
            "record note/2 of a kind that syncs has no sync state",
        ])
    }

    @Test func lmdbToolsStillReadTheStore() throws {
        try enable()
        try t.store.insert(["title": "a"], as: note)
        guard let dump = try runExternalTool("/usr/bin/mdb_dump", ["-a", t.path]) else { return }
        #expect(dump.status == 0 && dump.output.contains("database=sync"))
    }
}
