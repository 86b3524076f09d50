import Foundation
import Testing
import TestSupport
@_spi(Sync) @testable import KVStore

/// How applying remote changes moves the store's hybrid logical clock: to a stamp within the
/// tolerance of the hub's clock, never to one far ahead (which still applies by the rule).
@Suite struct RemoteClockTests {
    let t: TemporaryStore
    var store: Store { t.store }
    let other = UUID()

    init() throws {
        t = try .syncing()
    }

    /// The clock's state, as the next write recovers it.
    private func clock() throws -> HybridTime {
        try store.write { try $0.startClock() }
    }

    @Test func aStampWithinTheToleranceAdvancesTheClock() throws {
        let ahead = remote(.insert, ref("note/1"), nil, ["a": 1], at: nowMilliseconds() + 30_000, counter: 4, from: other)
        let report = try store.applyRemote([ahead])
        #expect(report.applied == 1 && report.aheadOfClock.isEmpty)
        #expect(try clock() == ahead.stamp)
        // The journal's last entry is the remote one: the next transaction reads the clock from meta.
        try store.insert(["n": 1], as: ref("note/2"))
        let local = try store.lastStamp()
        #expect(local.store == store.id && local.time > ahead.stamp)
    }

    @Test func aStampFarAheadAppliesButIsNotAdopted() throws {
        let wall = nowMilliseconds() + 3_600_000
        let ahead = remote(.insert, ref("note/1"), nil, ["a": 1], at: wall, from: other)
        let report = try store.applyRemote([ahead])
        #expect(report.applied == 1 && report.aheadOfClock == [ahead])
        #expect(try store.record(ref("note/1")) == ["a": 1])
        // Another record's next change keeps the store's own time…
        try store.insert(["n": 1], as: ref("note/2"))
        #expect(try store.lastStamp().wall < wall - 3_000_000)
        // …while a change of the record itself is stamped after it, so it wins.
        try store.setValue(2, forKey: "a", of: ref("note/1"))
        #expect(try store.lastStamp() > ahead.syncStamp)
        // Seen again, it is superseded, and still listed.
        #expect(try store.applyRemote([ahead]).aheadOfClock == [ahead])
    }

    @Test func theHubsClockDecidesWhatIsAhead() throws {
        let hubNow = Date().addingTimeInterval(3_600)
        let ahead = remote(.insert, ref("note/1"), nil, ["a": 1], at: HybridTime.milliseconds(hubNow), from: other)
        #expect(try store.applyRemote([ahead], hubNow: hubNow).aheadOfClock.isEmpty)
        try store.insert(["n": 1], as: ref("note/2"))
        #expect(try store.lastStamp().time > ahead.stamp)
    }

    @Test func aSupersededChangeStillAdvancesTheClock() throws {
        try store.applyRemote([remote(.delete, ref("note/1"), at: nowMilliseconds() + 3_600_000, from: other)])
        let late = remote(.set, ref("note/1"), "a", 1, at: nowMilliseconds() + 30_000, counter: 9, from: UUID())
        #expect(try store.applyRemote([late]).superseded == 1)
        #expect(try store.record(ref("note/1")) == nil)
        #expect(try clock() == late.stamp)
    }
}
