import Foundation
import Testing
@testable import KVStore

/// `@sum` and `@avg` of one key over a kind, read in place, give what the general path gives.
@Suite struct KindTotalTests {
    /// Inserts `values` as `amount` (a missing key for nil) of records of kind `invoice`.
    private func store(amounts: [Value?], key: String = "amount") throws -> TemporaryStore {
        let t = try TemporaryStore()
        try t.store.write { txn in
            for (index, amount) in amounts.enumerated() {
                var record: [String: Value] = ["n": .int(Int64(index))]
                record[key] = amount
                try txn.insert(record, as: try RecordRef(kind: "invoice", id: "i\(index)"))
            }
        }
        return t
    }

    /// The general path's result: the operator over every record's value.
    private func general(_ op: CollectionOperator, _ amounts: [Value?]) throws -> Value? {
        try op.combine(amounts.map { $0 == .null ? nil : $0 }, keyPath: "@\(op.rawValue).amount")
    }

    @Test(arguments: [
        [1, 2, 3, nil, .null, -4],
        [.int(.max), 1, -2],
        [],
        [nil, nil],
        (0 ..< 500).map { Value.int(Int64($0 * 7919 % 1000)) },
    ] as [[Value?]])
    func intsAreTotalledInPlace(amounts: [Value?]) throws {
        let t = try store(amounts: amounts)
        for op in [CollectionOperator.sum, .avg] {
            let expected = try general(op, amounts)
            #expect(try t.store.value(forKeyPath: "@\(op.rawValue).amount", ofKind: "invoice") == expected)
            let direct = try t.store.read { try $0.intTotal(op, ofKey: "amount", ofKind: "invoice") }
            #expect(direct == .some(expected), "the ints took the direct path")
        }
    }

    @Test(arguments: [[1, 2.5, 3], [1, "x"], [.int(.max), 1], [.int(.min), -1]] as [[Value?]])
    func otherValuesTakeTheGeneralPath(amounts: [Value?]) throws {
        let t = try store(amounts: amounts)
        let direct = try t.store.read { try $0.intTotal(.sum, ofKey: "amount", ofKind: "invoice") }
        #expect(direct == nil)
        let expected = Result { try general(.sum, amounts) }
        let got = Result { try t.store.value(forKeyPath: "@sum.amount", ofKind: "invoice") }
        switch (expected, got) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect("\(a)" == "\(b)")
        default: Issue.record("expected \(expected), got \(got)")
        }
    }

    @Test func aKeyIsLookedUpInNFC() throws {
        let t = try store(amounts: [1, 2, 4], key: "caf\u{E9}")
        #expect(try t.store.value(forKeyPath: "@sum.cafe\u{301}", ofKind: "invoice") == 7)
        #expect(try t.store.value(forKeyPath: "@sum.caf\u{E9}", ofKind: "invoice") == 7)
    }

    @Test func aClosedKindRefusesAKeyItDoesNotDeclare() throws {
        let t = try store(amounts: [1, 2])
        try t.store.write { try $0.declare(try Kind("invoice", keys: ["n": .int, "amount": .int])) }  // stored, no hook registered
        #expect(!t.store.hasRegisteredKinds)
        let other = t
        #expect(try other.store.read { try $0.intTotal(.sum, ofKey: "amount", ofKind: "invoice") } == .some(3))
        #expect(try other.store.read { try $0.intTotal(.sum, ofKey: "bogus", ofKind: "invoice") } == nil)
        #expect(throws: KeyValueCodingError.self) { try other.store.value(forKeyPath: "@sum.bogus", ofKind: "invoice") }
    }
}
