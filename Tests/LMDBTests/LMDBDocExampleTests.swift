import Foundation
import Testing
import TestSupport
import LMDB   // not @testable: the examples use the public API only

/// The ```swift examples of the `///` comments of the LMDB additions for the journal follower and
/// `kvstore stat`, run against a temporary environment. If one stops compiling, fix its doc too.
@Suite struct LMDBDocExampleTests {
    /// Environment+LastTransaction.swift.
    @Test func lastTransactionID() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment.open(path: dir.path)
        let db = try env.openDatabase("records")
        let seen = env.lastTransactionID
        #expect(env.lastTransactionID == seen)
        // … later
        try env.write { txn in try txn.put(Array("k".utf8), Array("v".utf8), in: db) }
        var committed = false
        if env.lastTransactionID != seen { committed = true /* something committed: read what is new */ }
        #expect(committed)
    }

    /// Environment+Statistics.swift: `statistics()` and `readerList()`.
    @Test func statisticsAndReaders() throws {
        let dir = try TemporaryDirectory()
        let environment = try Environment.open(path: dir.path)
        let stats = environment.statistics()
        #expect("\(stats.bytesUsed) of \(stats.mapSize) bytes used" == "\(stats.pagesUsed * stats.pageSize) of \(stats.mapSize) bytes used")
        #expect(environment.readerList().isEmpty)
        let readers = try environment.read { _ in environment.readerList() }
        var printed: [String] = []
        for reader in readers { printed.append(reader) }   // "  4711 7f3a… 42"
        let fields = try #require(printed.first).split(separator: " ")
        #expect(printed.count == 1 && fields.count == 3 && fields[0] == "\(getpid())")
    }

    /// Environment.swift and Transaction.swift: `value(forKey:in:)` copies a value,
    /// `withValue(forKey:in:_:)` lends it to a closure.
    @Test func readingAValue() throws {
        let dir = try TemporaryDirectory()
        let env = try Environment.open(path: dir.path, options: .init(mapSize: 1 << 20))
        let db = try env.openDatabase("records")
        try env.write { txn in try txn.put(Array("k".utf8), Array("v".utf8), in: db) }
        let v = try env.read { txn in try txn.value(forKey: Array("k".utf8), in: db) }
        #expect(v == Array("v".utf8))
        let size = try env.read { txn in try txn.withValue(forKey: Array("k".utf8), in: db) { $0?.count } }
        #expect(size == 1)
        #expect(try env.read { txn in try txn.withValue(forKey: Array("none".utf8), in: db) { $0 == nil } })
    }
}
