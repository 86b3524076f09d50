import Foundation
import LMDB
import Testing
@testable import KVStore

/// A record view reads what the decoded dictionary holds, and a damaged record is a typed error.
@Suite struct RecordViewTests {
    @Test func viewReadsEqualDictionaryReads() throws {
        let t = try TemporaryStore()
        let records = RecordShapesTests.records(count: 120, seed: 9)
        try t.store.write { txn in
            for (index, record) in records.enumerated() { try txn.insert(record, as: try RecordRef(kind: "item", id: "i\(100 + index)")) }
        }
        try t.store.read { txn in
            var seen = 0
            try txn.forEachRecordView(ofKind: "item") { view in
                let values = try view.values()
                #expect(try txn.record(view.ref) == values)
                #expect(try view.keys() == values.keys.sorted { UTF8Text.precedes($0, $1) })
                for (key, value) in values { #expect(try view.value(forKey: key) == value, "\(view.ref) \(key)") }
                #expect(try view.value(forKey: "absent") == nil)
                seen += 1
                return true
            }
            #expect(seen == records.count)
            let first = try RecordRef(kind: "item", id: "i100")
            let spelled = try txn.withRecordView(first) { view in
                // Either spelling of a key finds it: keys are stored, and looked up, in NFC.
                (try view.value(forKey: "e\u{301}t\u{E9}"), try view.value(forKey: "\u{E9}t\u{E9}"))
            }
            #expect(spelled?.0 == spelled?.1)
            #expect(try txn.withRecordView(try RecordRef(kind: "item", id: "none")) { _ in 1 } == nil)
        }
    }

    /// Every truncation of a stored record, and a byte changed anywhere: each read through the
    /// view gives the decoder's value or throws `StoreError.corrupt` naming the record.
    @Test func aDamagedRecordIsATypedError() throws {
        let t = try TemporaryStore()
        let item = try RecordRef(kind: "item", id: "i1")
        let good = RecordCodec.encode(["name": "Ada", "address": ["city": "London"], "n": 3, "é": [1, 2]])
        var variants = (0 ..< good.count).map { Array(good.prefix($0)) }
        for position in good.indices {
            var damaged = good
            damaged[position] ^= 0xA5
            variants.append(damaged)
        }
        for bytes in variants {
            try t.store.environment.write { txn in try txn.put(StoreLayout.recordKey(item), bytes, in: t.store.databases.records) }
            try t.store.read { txn in
                for key in ["name", "address", "n", "é", "zz"] {
                    let expected = Result { try bytes.withUnsafeBytes { try RecordCodec.value(forKey: key, in: $0) } }
                    let got = Result { try txn.withRecordView(item) { try $0.value(forKey: key) } ?? nil }
                    check(got, expected, item)
                }
                let whole = Result { try txn.withRecordView(item) { try $0.values() } }
                check(whole.map { $0 ?? [:] }, Result { try RecordCodec.decode(bytes) }, item)
                _ = Result { try txn.withRecordView(item) { try $0.keys() } }  // throws or not, never traps
            }
        }
    }

    private func check<T: Equatable>(_ got: Result<T, any Error>, _ expected: Result<T, any Error>, _ ref: RecordRef) {
        switch (got, expected) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let error), .failure):
            let storeError = error as? StoreError
            #expect(storeError?.code == .corrupt && "\(error)".contains("record \(ref) is corrupt"), "\(error)")
        default: Issue.record("view \(got), decoder \(expected)")
        }
    }
}
