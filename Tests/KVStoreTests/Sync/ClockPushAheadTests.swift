import Foundation
import Testing
import TestSupport
@_spi(Sync) @testable import KVStore

/// A local change to a record holding a stamp ahead of the clock (from a clock far ahead, not
/// adopted) is stamped just after that stamp, so it wins — but the store's clock stays at this
/// machine's time: the other records' changes are not dragged ahead, now or after reopening.
@Suite struct ClockPushAheadTests {
    let t: TemporaryStore
    let a = ref("note/a"), b = ref("note/b")
    let hour: UInt64 = 3_600_000

    init() throws {
        t = try .syncing()
    }

    /// Applies a change of `a` from a store whose clock is an hour ahead: not adopted.
    private func farAheadChange() throws -> RemoteChange {
        let change = remote(.insert, a, nil, ["x": "remote"], at: nowMilliseconds() + hour, from: UUID())
        #expect(try t.store.applyRemote([change]).aheadOfClock == [change])
        return change
    }

    /// Checks `store`'s last entry is stamped at this machine's time (not an hour ahead).
    private func expectNormalTime(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let wall = try store.lastStamp().wall
        #expect(wall <= nowMilliseconds() + WriteTransaction.clockTolerance, "stamped \(wall - nowMilliseconds()) ms ahead", sourceLocation: sourceLocation)
    }

    @Test func aLocalChangeWinsOverAFarAheadStampWithoutMovingTheClock() throws {
        let remoteChange = try farAheadChange()
        try t.store.setValue("local", forKey: "x", of: a)
        let local = try t.store.lastStamp()
        #expect(local > remoteChange.syncStamp && local.store == t.store.id)
        #expect(try t.store.read { try $0.syncState(of: a) }.keys["x"]?.stamp == local)
        // The same remote change again, or an older one of the key, loses to the local change.
        #expect(try t.store.applyRemote([remoteChange]).applied == 0)
        #expect(try t.store.record(a) == ["x": "local"])
        // The journal's last entry is the pushed one; another record still gets this machine's time.
        try t.store.insert(["y": 1], as: b)
        try expectNormalTime(t.store)
        #expect(try t.store.verify().findings == [])
    }

    @Test func theClockStaysBehindAfterReopening() throws {
        _ = try farAheadChange()
        try t.store.setValue("local", forKey: "x", of: a)  // the journal's last entry: pushed ahead
        let pushed = try t.store.lastStamp()
        let reopened = try Store(path: t.path, options: .testing)
        try reopened.insert(["y": 1], as: b)
        try expectNormalTime(reopened)
        // The record itself keeps winning: its next change is stamped after its last.
        try reopened.setValue("again", forKey: "x", of: a)
        #expect(try reopened.lastStamp() > pushed)
        let again = try Store(path: t.path, options: .testing)
        try again.setValue(2, forKey: "y", of: b)
        try expectNormalTime(again)
        #expect(try again.verify().findings == [])
    }

    @Test func theSavedClockIsReadOnlyAtItsSequence() throws {
        _ = try farAheadChange()
        try t.store.setValue("local", forKey: "x", of: a)
        let saved = try #require(try t.store.write { try $0.savedClock() })
        #expect(saved.sequence == (try t.store.lastSequence) && saved.time.wall <= nowMilliseconds())
        // A later entry that tells the clock is not pushed: it does not save, and the next
        // write reads the clock from it, not from the stale meta.
        try t.store.insert(["y": 1], as: b)
        let last = try t.store.lastStamp()
        #expect(try t.store.write { try $0.savedClock() }?.sequence == saved.sequence)
        #expect(try t.store.write { try $0.startClock() } == last.time)
    }

    @Test func aDamagedSavedClockIsReported() throws {
        try t.store.write { try $0.transaction.put(StoreLayout.MetaKey.syncClock, [1, 2, 3], in: $0.databases.meta) }
        #expect(performing: { try t.store.insert(["y": 1], as: b) },
                throws: { ($0 as? StoreError)?.code == .corrupt && "\($0)".contains("sync clock") })
    }
}
