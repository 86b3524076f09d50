import Foundation
import Testing
import TestSupport
@testable import LMDB

/// `Environment.lastTransactionID`: what a journal follower polls.
@Suite struct LastTransactionTests {
    @Test func itChangesWithEachCommitOnlyAndSeesOtherHandlesCommits() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)
        let db = try env.openDatabase("things")
        let other = try Environment(path: dir.path)  // a second handle plays another process
        let start = env.lastTransactionID
        #expect(other.lastTransactionID == start)
        _ = try env.read { try $0.value(forKey: Array("k".utf8), in: db) }
        #expect(env.lastTransactionID == start, "a read commits nothing")
        let id = try env.write { txn in
            try txn.put(Array("k".utf8), Array("v".utf8), in: db)
            return txn.id
        }
        #expect(env.lastTransactionID == id && id == start + 1)
        #expect(other.lastTransactionID == id, "the other handle sees the commit without a transaction")
        #expect(try other.read { $0.id } == id, "and a read there starts at that snapshot")
        struct Abort: Error {}
        _ = try? env.write { txn in
            try txn.put(Array("k".utf8), Array("w".utf8), in: db)
            throw Abort()
        }
        #expect(other.lastTransactionID == id, "an aborted write changes nothing")
        try env.write { _ in }
        #expect(other.lastTransactionID == id, "nor does a write that wrote nothing (LMDB commits no meta page)")
    }
}
