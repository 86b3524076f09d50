import Foundation
import Testing
import TestSupport
@testable import KVStore
@testable import LMDB

/// Group commit across the ways one store's files are written: two `Store`s on one directory
/// share the environment's queue and observers, and a writer that holds LMDB's write lock from
/// outside (another process) only delays the group.
@Suite struct GroupCommitSharingTests {
    /// Writes through two `Store`s open on one directory commit in one group, and an observer
    /// attached through the first sees every one of them, in commit order.
    @Test func twoStoresOnOneDirectoryShareGroupsAndObservers() throws {
        let t = try TemporaryStore()
        let first = t.store
        let second = try Store(path: t.path, options: .testing)
        let record = ref("counter/c")
        try first.insert(["n": 0], as: record)
        let seen = Received<ObservedChange>()
        let token = try first.observe(record, keyPath: "n", options: [.old, .new]) { seen.add($0) }
        defer { token.cancel() }
        let failures = Failures()
        try first.inOneGroup((1...4).map { i in {
            let store = i.isMultiple(of: 2) ? second : first
            do { try store.setValue(.int(Int64(i)), forKey: "n", of: record) } catch { failures.add("\(i): \(error)") }
        } })
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(first.environment.commitQueue.statistics.largestGroup == 4)
        let news = seen.all.map(\.newValue)
        #expect(Set(news) == Set((1...4).map { Value.int(Int64($0)) }) && news.count == 4)
        #expect(seen.all.map(\.oldValue) == [.int(0)] + news.dropLast())
    }

    /// While another handle on the files (as another process would) holds LMDB's write lock, the
    /// write that claimed the queue waits for it inside LMDB and the others queue; then they all
    /// commit, the queued ones as one group.
    @Test func aWriterOutsideTheProcessOnlyDelaysTheGroup() throws {
        let t = try TemporaryStore()
        let store = t.store
        let outside = try Environment(path: t.path)
        let meta = try outside.openDatabase(StoreLayout.meta, create: false)
        let holding = DispatchSemaphore(value: 0)
        let failures = Failures()
        let holderDone = DispatchSemaphore(value: 0)
        let holder = Thread {
            defer { holderDone.signal() }
            do {
                try outside.write { txn in
                    try txn.put(Array("outside".utf8), Array("1".utf8), in: meta)
                    holding.signal()
                    // Hold LMDB's lock until one write waits in LMDB and three queue behind it.
                    let deadline = Date().addingTimeInterval(60)
                    while store.environment.commitQueue.queued < 3 && Date() < deadline { usleep(100) }
                }
            } catch { failures.add("outside: \(error)") }
        }
        holder.start()
        holding.wait()
        let finished = DispatchSemaphore(value: 0)
        func insert(_ i: Int) {
            Thread {
                do { try store.insert([:], as: ref("item/\(i)")) } catch { failures.add("\(i): \(error)") }
                finished.signal()
            }.start()
        }
        insert(0)
        while !isClaimed(store) { usleep(100) }  // the first write runs: it waits inside LMDB
        for i in 1..<4 { insert(i) }
        for _ in 0..<4 { finished.wait() }
        holderDone.wait()
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(try store.count(ofKind: "item") == 4)
        #expect(store.environment.commitQueue.statistics.largestGroup == 3)
        #expect(try store.verify().isHealthy)
    }

    /// Whether a write holds the queue (claiming it for a moment when not: a write that joins
    /// meanwhile is handed the queue by the release).
    private func isClaimed(_ store: Store) -> Bool {
        let queue = store.environment.commitQueue
        guard queue.claimIfFree() else { return true }
        queue.release()
        return false
    }
}
