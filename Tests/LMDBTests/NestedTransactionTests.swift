import CLMDB
import Foundation
import Testing
import TestSupport
@testable import LMDB

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// `Transaction.nested`: a child transaction whose changes merge into its parent, or vanish alone.
@Suite struct NestedTransactionTests {
    struct Boom: Error {}

    @Test func aNestedTransactionMergesOnReturnAndVanishesOnThrow() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)
        let db = try env.openDatabase("things")
        try env.write { txn in
            try txn.put(bytes("a"), bytes("1"), in: db)
            try txn.nested { child in
                #expect(try child.value(forKey: bytes("a"), in: db) == bytes("1"))  // sees its parent
                try child.put(bytes("b"), bytes("2"), in: db)
            }
            #expect(throws: Boom.self) {
                try txn.nested { child in
                    try child.put(bytes("c"), bytes("3"), in: db)
                    try child.delete(bytes("a"), in: db)
                    throw Boom()
                }
            }
            #expect(try txn.value(forKey: bytes("b"), in: db) == bytes("2"))
            #expect(try txn.value(forKey: bytes("c"), in: db) == nil)
        }
        let stored = try env.read { txn in
            try ["a", "b", "c"].map { try txn.value(forKey: bytes($0), in: db).map { String(decoding: $0, as: UTF8.self) } }
        }
        #expect(stored == ["1", "2", nil])
    }

    /// A nested transaction out of map space fails with `MDB_MAP_FULL` even when its body
    /// swallowed the error, and its parent's write grows the map and runs again.
    @Test func aNestedTransactionOutOfSpaceMakesTheWriteRunAgain() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path, options: .init(mapSize: 64 << 10))
        let db = try env.openDatabase("things")
        var runs = 0
        var nestedErrors: [Int32] = []
        try env.write { txn in
            runs += 1
            do {
                try txn.nested { child in
                    for i in 0..<64 { try? child.put(bytes("k\(i)"), [UInt8](repeating: 7, count: 4096), in: db) }
                }
            } catch { nestedErrors.append((error as? LMDBError)?.code ?? 0) }
        }
        #expect(runs > 1)
        #expect(nestedErrors.allSatisfy { $0 == MDB_MAP_FULL } && nestedErrors.count == runs - 1)
        #expect(try env.read { try $0.value(forKey: bytes("k63"), in: db) != nil })
    }
}
