import Foundation
import Synchronization
import Testing
import TestSupport
@testable import LMDB

/// A read transaction's snapshot is the commit its id names, and a thread's snapshots never go
/// back, however commits race the reader's begin (see `Environment.beginRead()`).
@Suite struct ReadSnapshotTests {
    /// Each commit stores its own transaction id; a read with id N must find N. LMDB alone lets a
    /// reader preempted inside `mdb_txn_begin` copy the meta page of commit N + 2 while it says N,
    /// and its next read then finds N + 1. Writers commit without syncing and threads that only
    /// spin keep the two cores busy, so that readers are preempted inside the begin often.
    ///
    /// Writers on a handle of their own play another process: their commits are seen only in the
    /// meta pages, not counted by the readers' environment.
    @Test(arguments: [false, true])
    func aReadSeesTheCommitItsIDNamesAndAThreadsReadsNeverGoBack(writersOnAnotherHandle: Bool) throws {
        let dir = try TemporaryDirectory()
        let env = try Environment(path: dir.path, options: .init(durability: .noSync))
        let writing = writersOnAnotherHandle ? try Environment(path: dir.path, options: .init(durability: .noSync)) : env
        let db = try env.openDatabase("counter"), writingDB = try writing.openDatabase("counter")
        let key = Array("last".utf8)
        @Sendable func commit() throws {
            try writing.write { txn in
                try txn.put(key, withUnsafeBytes(of: UInt64(txn.id).littleEndian, Array.init), in: writingDB)
            }
        }
        try commit()
        let stop = Atomic<Bool>(false)
        let failures = Mutex<[String]>([])
        let reads = Atomic<Int>(0)
        let group = DispatchGroup()
        @Sendable func onThread(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread { body(); group.leave() }.start()
        }
        for reader in 0..<3 {
            onThread {
                var previous: UInt64 = 0
                while !stop.load(ordering: .relaxed) {
                    do {
                        let (id, value) = try env.read { txn in
                            (UInt64(txn.id), try txn.withValue(forKey: key, in: db) { $0.map { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) } } ?? 0)
                        }
                        reads.add(1, ordering: .relaxed)
                        if value != id || value < previous {
                            failures.withLock { $0.append("reader \(reader): read \(id) found \(value) after \(previous)") }
                        }
                        previous = value
                    } catch {
                        failures.withLock { $0.append("reader \(reader): \(error)") }
                        return
                    }
                }
            }
        }
        for _ in 0..<2 {
            onThread { while !stop.load(ordering: .relaxed) { var x = 0; for i in 0..<10_000 { x &+= i }; _ = x } }
        }
        let writers = DispatchGroup()
        for _ in 0..<2 {
            writers.enter()
            Thread {
                defer { writers.leave() }
                let deadline = Date().addingTimeInterval(1.5)
                while Date() < deadline {
                    do { try commit() } catch {
                        failures.withLock { $0.append("writer: \(error)") }
                        return
                    }
                }
            }.start()
        }
        writers.wait()
        stop.store(true, ordering: .relaxed)
        group.wait()
        #expect(reads.load(ordering: .relaxed) > 0)
        let found = failures.withLock { $0 }
        #expect(found.isEmpty, "\(found.count) failures: \(found.prefix(5))")
    }
}
