import Foundation
import Testing
import TestSupport
@testable import KVStore

/// A write transaction's `forEachRecord` may write as it goes: an index scan must not read ids
/// from an entry that the body's write moved or rewrote.
@Suite("index scans: the body of forEachRecord may write")
struct IndexScanWriteTests {
    /// Ids whose first 503 bytes agree: with a 4-byte tuple they share one cut key, their ids
    /// listed in its value (``IndexEntryLayout``).
    static func longID(_ n: Int) -> RecordRef {
        ref("item/" + String(repeating: "k", count: 503) + "\(n)")
    }

    @Test("deleting or changing each result of an id-listed entry visits every one once", arguments: [false, true])
    func writesDuringTheScan(deleting: Bool) throws {
        let t = try indexedStore([indexOn("s")])
        let query = RecordQuery(kind: "item", where: try KeyPathPredicate("s == 'x'"))
        try t.store.write { txn in
            // Written in this transaction: the entries' pages are the transaction's own, which
            // its writes change in place.
            for n in 0 ..< 4 { try txn.insert(["s": "x"], as: Self.longID(n)) }
            for n in 0 ..< 30 { try txn.insert(["s": .string("w\(n)")], as: ref("item/w\(n)")) }
            var visited: [RecordRef] = []
            try txn.forEachRecord(matching: query) { record in
                visited.append(record.ref)
                if deleting { try txn.delete(record.ref) } else { try txn.setValue("y", forKey: "s", of: record.ref) }
                return true
            }
            #expect(visited == (0 ..< 4).map(Self.longID))
        }
        #expect(try t.store.count(matching: query) == 0)
        #expect(try t.store.findings() == [])
    }
}
