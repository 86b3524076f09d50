import Foundation
import Testing
import TestSupport
@testable import KVStore

/// ``HybridTime`` and ``SyncStamp``: their order, packing, the clock's step and the text form.
@Suite struct SyncStampTests {
    @Test func packingRoundTripsAndOrdersAsTheTimes() {
        var random = SeededRandom(7)
        var times: [HybridTime] = [HybridTime(wall: 0, counter: 0), HybridTime(wall: HybridTime.maxWall, counter: .max)]
        for _ in 0 ..< 500 {
            times.append(HybridTime(wall: random.next() % (HybridTime.maxWall + 1), counter: UInt16(truncatingIfNeeded: random.next())))
        }
        for time in times {
            #expect(HybridTime(packed: time.packed) == time)
        }
        for (a, b) in zip(times, times.shuffled()) {
            let byParts = a.wall != b.wall ? a.wall < b.wall : a.counter < b.counter
            #expect((a < b) == byParts && (a < b) == (a.packed < b.packed))
        }
    }

    @Test func theJSONTextIsTheWallAndTheCounter() {
        let time = HybridTime(wall: HybridTime.maxWall, counter: 65_535)
        #expect(time.jsonText == "281474976710655.65535" && HybridTime(jsonText: time.jsonText) == time)
        #expect(HybridTime(jsonText: "1795300800125.3") == HybridTime(wall: 1_795_300_800_125, counter: 3))
        for text in ["", "1", "1.", ".1", "1.2.3", "-1.0", "1.65536", "281474976710656.0", "1.+2", " 1.2"] {
            #expect(HybridTime(jsonText: text) == nil, "\(text)")
        }
    }

    @Test func aWallPastFortyEightBitsIsClamped() {
        #expect(HybridTime(wall: .max, counter: 1) == HybridTime(wall: HybridTime.maxWall, counter: 1))
        #expect(HybridTime.milliseconds(Date(timeIntervalSince1970: 1e300)) == HybridTime.maxWall)
        #expect(HybridTime.milliseconds(Date(timeIntervalSince1970: -5)) == 0)
        #expect(HybridTime.milliseconds(Date(timeIntervalSinceReferenceDate: .nan)) == 0)
        #expect(HybridTime(legacy: Date(timeIntervalSince1970: 1.2349)) == HybridTime(wall: 1234, counter: 0))
    }

    @Test func theClockStepsForwardStrictly() {
        let last = HybridTime(wall: 1000, counter: 4)
        #expect(last.successor(now: 2000) == HybridTime(wall: 2000, counter: 0))  // physical time is later
        #expect(last.successor(now: 1000) == HybridTime(wall: 1000, counter: 5))  // same millisecond
        #expect(last.successor(now: 10) == HybridTime(wall: 1000, counter: 5))    // physical time behind
        // Counter overflow: the next millisecond, counter 0.
        #expect(HybridTime(wall: 1000, counter: .max).successor(now: 999) == HybridTime(wall: 1001, counter: 0))
        // The very last time (only a damaged stamp reaches it) stays.
        let end = HybridTime(wall: HybridTime.maxWall, counter: .max)
        #expect(end.successor(now: 0) == end)
    }

    @Test func stampsOrderByTimeThenStoreBytes() throws {
        let low = try #require(UUID(uuidString: "00000000-0000-0000-0000-0000000000ff"))
        let high = try #require(UUID(uuidString: "01000000-0000-0000-0000-000000000000"))
        let time = HybridTime(wall: 5, counter: 1)
        #expect(SyncStamp(time: time, store: low) < SyncStamp(time: time, store: high))
        #expect(SyncStamp(time: HybridTime(wall: 5, counter: 2), store: low) > SyncStamp(time: time, store: high))
        #expect(SyncStamp(time: HybridTime(wall: 6, counter: 0), store: low) > SyncStamp(time: HybridTime(wall: 5, counter: 9), store: high))
        #expect(!(SyncStamp(time: time, store: low) < SyncStamp(time: time, store: low)))
    }

    @Test func theTextFormIsReadableAndRoundTrips() throws {
        let store = try #require(UUID(uuidString: "3F2A5C1E-0000-4000-8000-00000000000A"))
        let stamp = SyncStamp(time: HybridTime(wall: 1_795_300_800_125, counter: 3), store: store)
        #expect(stamp.description == "2026-11-21T22:40:00.125Z#3@3f2a5c1e-0000-4000-8000-00000000000a")
        #expect(SyncStamp(stamp.description) == stamp)
        #expect(HybridTime(wall: 7, counter: 0).description == "1970-01-01T00:00:00.007Z#0")
        var random = SeededRandom(11)
        for _ in 0 ..< 300 {
            let time = HybridTime(wall: random.next() % (HybridTime.maxWall + 1), counter: UInt16(truncatingIfNeeded: random.next()))
            #expect(HybridTime(time.description) == time, "\(time)")
        }
        #expect(HybridTime(HybridTime(wall: HybridTime.maxWall, counter: .max).description) != nil)
    }

    @Test(arguments: [
        "", "#", "2026-11-21T22:40:00Z#3", "2026-11-21T22:40:00.12Z#3", "2026-11-21T22:40:00.125Z#", "2026-11-21T22:40:00.125Z#+3",
        "2026-11-21T22:40:00.125Z#65536", "2026-11-21T22:40:00.+25Z#3", "2026-11-21T22:40:00.125+01:00#3", "1969-12-31T23:59:59.999Z#0",
        "2026-11-21T22:40:00.5.125Z#1", "2026-13-21T22:40:00.125Z#3", "+10889-08-02T05:31:50.656Z#0",
    ])
    func malformedTimeTextIsRefused(_ text: String) {
        #expect(HybridTime(text) == nil)
    }

    @Test func malformedStampTextIsRefused() {
        #expect(SyncStamp("2026-11-21T22:40:00.125Z#3") == nil)
        #expect(SyncStamp("2026-11-21T22:40:00.125Z#3@not-a-uuid") == nil)
        #expect(SyncStamp("x@3f2a5c1e-0000-4000-8000-00000000000a") == nil)
    }
}
