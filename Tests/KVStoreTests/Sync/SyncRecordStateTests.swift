import Foundation
import Testing
import TestSupport
@testable import KVStore

/// ``SyncRecordState``: max-registers, so any order and any repetition of the same changes gives
/// the same state; and its stored form.
@Suite struct SyncRecordStateTests {
    private let stores = (0 ..< 3).map { _ in UUID() }

    /// Random changes of one record by three stores, on three keys, with colliding walls; each
    /// with a stamp of its own, as every journal entry has (one store never gives a stamp twice).
    private func changes(_ random: inout SeededRandom, count: Int) -> [(SyncRecordState.Change, SyncStamp)] {
        var used = Set<SyncStamp>()
        return (0 ..< count).compactMap { _ in
            let stamp = SyncStamp(time: HybridTime(wall: random.next() % 6, counter: UInt16(random.next() % 2)), store: stores[Int(random.next() % 3)])
            guard used.insert(stamp).inserted else { return nil }
            let key = ["a", "b", "c"][Int(random.next() % 3)]
            let change: SyncRecordState.Change = switch random.next() % 5 {
            case 0: .inserted(keys: [key, "a"])
            case 1: .deleted
            case 2: .key(key, isSet: false)
            default: .key(key, isSet: true)
            }
            return (change, stamp)
        }
    }

    @Test func anyOrderAndRepetitionGivesTheSameState() {
        var random = SeededRandom(2026)
        for _ in 0 ..< 300 {
            let all = changes(&random, count: 8)
            var reference = SyncRecordState()
            for (change, stamp) in all { reference.apply(change, stamp: stamp) }
            for _ in 0 ..< 4 {
                var state = SyncRecordState()
                var order = all + all.prefix(Int(random.next() % 4))  // some applied twice
                for index in order.indices.reversed() { order.swapAt(index, Int(random.next() % UInt64(index + 1))) }
                for (change, stamp) in order { state.apply(change, stamp: stamp) }
                #expect(state == reference, "\(all)")
            }
        }
    }

    @Test func aDeletionRemovesTheKeysBeforeItAndAKeySetAfterItRevivesTheRecord() {
        let s = stores[0]
        var state = SyncRecordState()
        state.apply(.inserted(keys: ["a", "b"]), stamp: SyncStamp(time: HybridTime(wall: 1, counter: 0), store: s))
        state.apply(.key("c", isSet: true), stamp: SyncStamp(time: HybridTime(wall: 5, counter: 0), store: s))
        state.apply(.deleted, stamp: SyncStamp(time: HybridTime(wall: 3, counter: 0), store: s))
        #expect(state.exists && Set(state.keys.keys) == ["c"] && state.isPresent("c") && !state.isPresent("a"))
        // A set older than the deletion arrives late: it stays dead.
        let applied = state.apply(.key("a", isSet: true), stamp: SyncStamp(time: HybridTime(wall: 2, counter: 0), store: s))
        #expect(!applied)
        state.apply(.key("c", isSet: false), stamp: SyncStamp(time: HybridTime(wall: 6, counter: 0), store: s))
        #expect(!state.exists)
    }

    @Test func theStoredFormRoundTrips() throws {
        let stamp = SyncStamp(time: HybridTime(wall: 1_795_300_800_125, counter: 3), store: stores[1])
        for key in [SyncRecordState.KeyStamp(stamp: stamp, isSet: true), .init(stamp: stamp, isSet: false)] {
            #expect(SyncStateStorage.encode(key).withUnsafeBytes(SyncStateStorage.decodeKey) == key)
        }
        for (created, deleted) in [(stamp, nil), (nil, stamp), (stamp, stamp), (nil, nil)] as [(SyncStamp?, SyncStamp?)] {
            let decoded = try #require(SyncStateStorage.encodeRecord(created: created, deleted: deleted).withUnsafeBytes(SyncStateStorage.decodeRecord))
            #expect(decoded.created == created && decoded.deleted == deleted)
        }
        for damaged: [UInt8] in [[], [4], [1], [3] + [UInt8](repeating: 0, count: 24), [2] + [UInt8](repeating: 0, count: 25)] {
            #expect(damaged.withUnsafeBytes(SyncStateStorage.decodeRecord) == nil)
        }
        #expect([UInt8](repeating: 0, count: 24).withUnsafeBytes(SyncStateStorage.decodeKey) == nil)
        #expect(([2] + [UInt8](repeating: 0, count: 24)).withUnsafeBytes(SyncStateStorage.decodeKey) == nil)
        #expect(SyncStateStorage.key("k", of: ref("note/1")).withUnsafeBytes(SyncStateStorage.ref(fromKey:)) == ref("note/1"))
        #expect(Array("note\u{0}1".utf8).withUnsafeBytes(SyncStateStorage.ref(fromKey:)) == nil)
    }
}
