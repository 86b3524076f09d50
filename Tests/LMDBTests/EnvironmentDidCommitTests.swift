import Foundation
import Testing
import TestSupport
@testable import LMDB

/// `Environment.write(_:didCommit:)`: runs once, after the final commit, still under the write lock.
@Suite struct EnvironmentDidCommitTests {
    @Test func didCommitRunsOnceAfterTheFinalRunOfAWriteThatGrewTheMap() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path, options: .init(mapSize: 64 << 10))
        let db = try env.openDatabase("things")
        var runs = 0, commits = 0, runsAtCommit = 0
        let big = [UInt8](repeating: 7, count: 4096)
        try env.write({ txn in
            runs += 1
            for i in 0..<64 { try txn.put(Array("k\(i)".utf8), big, in: db) }  // fills the 64 KiB map
        }, didCommit: {
            commits += 1
            runsAtCommit = runs
            // Committed: a read sees the data.
            #expect((try? env.read { try $0.value(forKey: Array("k63".utf8), in: db) != nil }) == true)
        })
        #expect(runs > 1)
        #expect(commits == 1 && runsAtCommit == runs)
    }

    @Test func didCommitDoesNotRunWhenTheWriteFails() throws {
        struct Boom: Error {}
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)
        let db = try env.openDatabase("things")
        var commits = 0
        #expect(throws: Boom.self) {
            try env.write({ txn in
                try txn.put(Array("k".utf8), Array("v".utf8), in: db)
                throw Boom()
            }, didCommit: { commits += 1 })
        }
        #expect(commits == 0)
    }

    @Test func didCommitHoldsTheWriteLock() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path)
        var nested: Int32?
        try env.write({ _ in }, didCommit: {
            do { try env.write { _ in } } catch { nested = (error as? LMDBError)?.code }
        })
        #expect(nested == EDEADLK)
    }
}
