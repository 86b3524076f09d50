import CLMDB
import Foundation
import Testing
import TestSupport
@testable import LMDB

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// `Environment.write(_: GroupedWrite)`: each write of a group keeps its own outcome, whatever
/// another write's body did to its nested transaction.
@Suite struct GroupedWriteTests {
    /// Runs `bodies` as one group: this thread holds the queue until all of them are queued.
    /// - Returns: each write's error (nil: committed).
    private func inOneGroup(_ env: Environment, _ bodies: [GroupedWrite.Body]) -> [Int32?] {
        let writes = bodies.map { body in GroupedWrite(body: body, merged: {}, discarded: {}, committed: {}) }
        #expect(env.commitQueue.claimIfFree())
        let finished = DispatchSemaphore(value: 0)
        for write in writes {
            Thread {
                try? env.write(write)
                finished.signal()
            }.start()
        }
        let deadline = Date().addingTimeInterval(60)  // only keeps a broken queue from hanging the test
        while env.commitQueue.queued < writes.count && Date() < deadline { usleep(100) }
        env.commitQueue.release()
        for _ in writes { finished.wait() }
        return writes.map { write in write.error.map { ($0 as? LMDBError)?.code ?? -1 } }
    }

    /// A body that swallows an error LMDB marks its (nested) transaction with — here a full map
    /// met through the C API, which the layer does not see — makes its nested commit fail, and
    /// LMDB then marks the group's transaction unusable too (`MDB_TXN_ERROR`). The other writes
    /// of the group must still commit: the group runs again without that write, which fails
    /// with LMDB's error as it would alone.
    @Test func aNestedCommitThatBreaksTheGroupsTransactionFailsOnlyItsWrite() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path, options: .init(mapSize: 64 << 10))
        let db = try env.openDatabase("things")
        let errors = inOneGroup(env, [
            { txn in try txn.put(bytes("a"), bytes("1"), in: db) },
            { txn in
                // Fill the map behind the layer's back until LMDB refuses, and carry on.
                for i in 0..<64 {
                    var key = MDB_val(), value = MDB_val()
                    let k = bytes("big\(i)"), v = [UInt8](repeating: 7, count: 4096)
                    let rc = k.withUnsafeBytes { k in
                        v.withUnsafeBytes { v in
                            key = MDB_val(mv_size: k.count, mv_data: UnsafeMutableRawPointer(mutating: k.baseAddress))
                            value = MDB_val(mv_size: v.count, mv_data: UnsafeMutableRawPointer(mutating: v.baseAddress))
                            return mdb_put(txn.txn, db.dbi, &key, &value, 0)
                        }
                    }
                    if rc != 0 { break }
                }
            },
            { txn in try txn.put(bytes("c"), bytes("3"), in: db) },
        ])
        #expect(errors[0] == nil && errors[2] == nil, "\(errors)")
        #expect(errors[1] == MDB_BAD_TXN)
        let stored = try env.read { txn in
            try ["a", "big0", "c"].map { try txn.value(forKey: bytes($0), in: db).map { String(decoding: $0, as: UTF8.self) } }
        }
        #expect(stored == ["1", nil, "3"])
    }
}
