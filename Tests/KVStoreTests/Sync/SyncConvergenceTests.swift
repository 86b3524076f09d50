import Foundation
import Testing
import TestSupport
@_spi(Sync) @testable import KVStore

/// The property the per-key last-writer-wins rule exists for: stores that change the same records
/// and then apply each other's changes — in any order, in any batches, any number of times —
/// end with the same records and the same sync state.
@Suite struct SyncConvergenceTests {
    /// One store and what it exchanged with the hub (a list of every store's uploaded changes).
    final class Peer {
        let t: TemporaryStore
        var store: Store { t.store }
        var uploaded: UInt64 = 0
        var downloaded = 0

        init() throws { t = try .syncing() }
    }

    @Test(arguments: 1 ... 8 as ClosedRange<UInt64>)
    func storesConvergeWhateverTheOrder(seed: UInt64) throws {
        var random = SeededRandom(seed)
        let peers = try (0 ..< 3).map { _ in try Peer() }
        // A change stamped 20 s ahead, which every clock adopts: the stores' next stamps share
        // wall times, and equal times are broken by store id.
        var hub = [remote(.insert, ref("note/0"), nil, ["title": "start"], at: nowMilliseconds() + 20_000, from: UUID())]
        for round in 0 ..< 6 {
            for peer in peers {
                try download(into: peer, from: hub, through: round == 0 ? 1 : peer.downloaded + Int(random.next() % UInt64(hub.count - peer.downloaded + 1)), &random)
                for _ in 0 ..< random.next() % 8 { try Self.randomWrite(to: peer.store, &random) }
                let batch = try peer.store.read { try $0.localChanges(after: peer.uploaded) }
                hub += batch.changes
                peer.uploaded = batch.lastSequence
            }
        }
        for peer in peers {
            try download(into: peer, from: hub, through: hub.count, &random)
            // Everything again, in another order: nothing changes, nothing is journaled.
            let sequence = try peer.store.lastSequence
            try apply(hub.filter { $0.origin.storeID != peer.store.id }, to: peer.store, &random)
            #expect(try peer.store.lastSequence == sequence)
            #expect(try peer.store.verify().findings == [])
        }
        let records = try peers[0].store.allRecords(), sync = try peers[0].store.syncDatabase()
        #expect(!records.isEmpty)
        // Stores gave equal times (their clocks adopted the same stamp): store ids broke the ties.
        #expect(Dictionary(grouping: hub, by: \.stamp).values.contains { Set($0.map(\.origin.storeID)).count > 1 })
        for peer in peers.dropFirst() {
            #expect(try peer.store.allRecords() == records)
            #expect(try peer.store.syncDatabase() == sync)
        }
    }

    /// Applies the hub's changes of other stores up to `end` that `peer` has not seen.
    private func download(into peer: Peer, from hub: [RemoteChange], through end: Int, _ random: inout SeededRandom) throws {
        try apply(hub[peer.downloaded ..< end].filter { $0.origin.storeID != peer.store.id }, to: peer.store, &random)
        peer.downloaded = end
    }

    /// Applies `changes` shuffled, in batches of random sizes, some of them twice.
    private func apply(_ changes: [RemoteChange], to store: Store, _ random: inout SeededRandom) throws {
        var shuffled = changes
        for i in shuffled.indices.reversed() where i > 0 { shuffled.swapAt(i, Int(random.next() % UInt64(i + 1))) }
        var rest = shuffled[...]
        while !rest.isEmpty {
            let batch = Array(rest.prefix(1 + Int(random.next() % 4)))
            rest = rest.dropFirst(batch.count)
            try store.applyRemote(batch)
            if random.next() % 4 == 0 { try store.applyRemote(batch.reversed()) }
        }
    }

    /// One local change of a few records and keys: an insertion, a deletion, a key set or
    /// removed, a key path set, an array edited.
    static func randomWrite(to store: Store, _ random: inout SeededRandom) throws {
        let note = ref("note/\(random.next() % 3)")
        func value() -> Value { random.next() % 2 == 0 ? .int(Int64(random.next() % 4)) : .string("s\(random.next() % 3)") }
        try store.write { txn in
            guard let record = try txn.record(note) else {
                var values: [String: Value] = [:]
                for key in ["a", "b", "tags"] where random.next() % 2 == 0 { values[key] = key == "tags" ? ["t"] : value() }
                return try txn.insert(values, as: note)
            }
            let key = random.next() % 2 == 0 ? "a" : "b"
            switch random.next() % 6 {
            case 0:
                try txn.delete(note)
            case 1:
                try txn.removeValue(forKey: key, of: note)
            case 2:
                if case .dictionary? = record["meta"] {
                    try txn.setValue(value(), forKeyPath: "meta.x", of: note)
                } else {
                    try txn.setValue(["x": value()], forKey: "meta", of: note)
                }
            case 3:
                guard case .array(let tags)? = record["tags"] else { return try txn.setValue(["t"], forKey: "tags", of: note) }
                let array = txn.mutableArray(forKey: "tags", of: note)
                if tags.isEmpty || random.next() % 2 == 0 { try array.append(value()) } else { try array.remove(at: 0) }
            default:
                try txn.setValue(value(), forKey: key, of: note)
            }
        }
    }
}
