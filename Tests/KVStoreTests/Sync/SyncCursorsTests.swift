import Foundation
import Testing
import TestSupport
@_spi(Sync) @testable import KVStore

/// The sync cursors in meta (`sync/cursors`), and the hub offset stored with them: it clamps the
/// store's clock to the hub's time when this machine's clock runs ahead.
@Suite struct SyncCursorsTests {
    let t: TemporaryStore
    var store: Store { t.store }

    init() throws {
        t = try .syncing()
    }

    private func cursors(uploaded: UInt64 = 0, offset: Int64? = nil) -> SyncCursors {
        SyncCursors(hub: "hub-1", uploadedThrough: uploaded, download: [0, 1, 255], hubOffsetMilliseconds: offset)
    }

    private func stored() throws -> SyncCursors? {
        try store.read { try $0.syncCursors() }
    }

    private func putRaw(_ bytes: [UInt8]) throws {
        try store.write { try $0.transaction.put(StoreLayout.MetaKey.syncCursors, bytes, in: $0.databases.meta) }
    }

    @Test func cursorsAreStoredWithTheChangesOfTheirTransaction() throws {
        #expect(try stored() == nil)
        try store.write { txn in
            try txn.insert(["a": 1], as: ref("note/1"))
            try txn.setSyncCursors(cursors(uploaded: 1, offset: -1_234))
        }
        #expect(try stored() == cursors(uploaded: 1, offset: -1_234))
        try store.write { try $0.setSyncCursors(cursors(uploaded: 1)) }
        #expect(try stored() == cursors(uploaded: 1))
        // A write that throws stores nothing.
        struct Abort: Error {}
        #expect(throws: Abort.self) { try store.write { try $0.setSyncCursors(cursors(uploaded: 0)); throw Abort() } }
        #expect(try stored() == cursors(uploaded: 1))
        try store.write { try $0.setSyncCursors(nil) }
        #expect(try stored() == nil)
    }

    @Test func aStoreThatDoesNotSyncRefusesCursors() throws {
        let plain = try TemporaryStore()
        #expect(performing: { try plain.store.write { try $0.setSyncCursors(cursors()) } },
                throws: { ($0 as? SyncStateError)?.code == .notSyncing })
        #expect(try plain.store.read { try $0.syncCursors() } == nil)
    }

    @Test func anUploadCursorPastTheJournalIsRefused() throws {
        try store.insert(["a": 1], as: ref("note/1"))
        #expect(performing: { try store.write { try $0.setSyncCursors(cursors(uploaded: 2)) } },
                throws: { ($0 as? SyncStateError)?.code == .cursorAhead && "\($0)".contains("restored from a backup or copied") })
        #expect(try stored() == nil)
        // This transaction's own entries count.
        try store.write { txn in
            try txn.insert(["a": 2], as: ref("note/2"))
            try txn.setSyncCursors(cursors(uploaded: 2))
        }
        #expect(try stored()?.uploadedThrough == 2)
    }

    @Test func damagedOrNewerCursorsAreRefused() throws {
        try putRaw([1] + RecordCodec.encode(["hub": "h", "uploadedThrough": 1]))
        #expect(performing: { try stored() }, throws: { ($0 as? StoreError)?.code == .corrupt && "\($0)".contains("sync cursors") })
        try putRaw([1] + RecordCodec.encode(["hub": "h", "uploadedThrough": 1, "download": .bytes(Data()), "extra": 1]))
        #expect(performing: { try stored() }, throws: { ($0 as? StoreError)?.code == .corrupt && "\($0)".contains("extra") })
        try putRaw([2])
        #expect(performing: { try stored() }, throws: { ($0 as? StoreError)?.code == .newerFormat })
        try putRaw([])
        #expect(performing: { try stored() }, throws: { ($0 as? StoreError)?.code == .corrupt })
    }

    @Test func aClockAheadOfTheHubIsClamped() throws {
        let hour: Int64 = 3_600_000
        try store.write { try $0.setSyncCursors(cursors(offset: -hour)) }
        #expect(try store.read { try $0.clockIsClamped() })
        let before = nowMilliseconds()
        try store.insert(["a": 1], as: ref("note/1"))
        let wall = try store.lastStamp().wall
        #expect(wall >= before - UInt64(hour) && wall <= nowMilliseconds() - UInt64(hour))
        // Within the tolerance, the machine's own time.
        try store.write { try $0.setSyncCursors(cursors(offset: -30_000)) }
        #expect(try !store.read { try $0.clockIsClamped() })
        try store.insert(["a": 1], as: ref("note/2"))
        #expect(try store.lastStamp().wall >= before)
        // A machine behind the hub is not clamped: remote stamps move its clock.
        try store.write { try $0.setSyncCursors(cursors(offset: hour)) }
        #expect(try !store.read { try $0.clockIsClamped() })
    }

    @Test func aStoreThatStopsSyncingIsNotClamped() throws {
        try store.write { try $0.setSyncCursors(cursors(offset: -3_600_000)) }
        try store.write { try $0.setSyncConfiguration(nil) }
        #expect(try !store.read { try $0.clockIsClamped() })
        let before = nowMilliseconds()
        try store.insert(["a": 1], as: ref("person/1"))
        #expect(try store.lastStamp().wall >= before)
    }

    @Test func theHubOffsetEstimatesTheHubsTimeForRemoteStamps() throws {
        // The hub is two hours ahead of this machine: a stamp an hour ahead of this machine is
        // within the hub's time, and adopted.
        try store.write { try $0.setSyncCursors(cursors(offset: 7_200_000)) }
        let change = remote(.insert, ref("note/1"), nil, ["a": 1], at: nowMilliseconds() + 3_600_000, from: UUID())
        #expect(try store.applyRemote([change]).aheadOfClock.isEmpty)
        try store.insert(["a": 1], as: ref("note/2"))
        #expect(try store.lastStamp().time > change.stamp)
    }
}
