import Testing
@testable import KVStore

/// The per-kind counts a write transaction keeps (``KindCountDeltas``): the kind changed last
/// beside the table, every other one in it.
@Suite struct KindCountDeltasTests {
    @Test func interleavedKindsSumAsOneTableWould() {
        var deltas = KindCountDeltas()
        var expected: [String: Int] = [:]
        let changes: [(String, Int)] = [("a", 1), ("a", 1), ("b", 1), ("a", -1), ("c", 1), ("c", -1), ("b", 1), ("a", 1), ("a", 1)]
        for (kind, delta) in changes {
            deltas.add(delta, to: kind)
            expected[kind, default: 0] += delta
            for name in ["a", "b", "c", "d"] { #expect(deltas[name] == expected[name, default: 0], "\(name)") }
            #expect(deltas.all.filter { $0.value != 0 } == expected.filter { $0.value != 0 })
        }
    }

    @Test func aTransactionCountsInsertsAndDeletesOfSeveralKinds() throws {
        let temporary = try TemporaryStore()
        try temporary.store.write { txn in
            for number in 0 ..< 3 { try txn.insert(["n": .int(Int64(number))], as: ref("a/\(number)")) }
            try txn.insert(["n": 1], as: ref("b/1"))
            try txn.delete(ref("a/0"))
            try txn.insert(["n": 2], as: ref("b/2"))
            #expect(try txn.count(ofKind: "a") == 2)
            #expect(try txn.count(ofKind: "b") == 2)
            #expect(try txn.kinds().map { "\($0.kind)=\($0.count)" } == ["a=2", "b=2"])
        }
        try temporary.store.write { txn in
            try txn.delete(ref("b/1"))
            try txn.insert(["n": 3], as: ref("a/3"))
        }
        let counts = try temporary.store.read { txn in (try txn.count(ofKind: "a"), try txn.count(ofKind: "b")) }
        #expect(counts == (3, 1))
    }
}
