import Foundation
import Testing
import TestSupport
@testable import KVStore

/// Map growth under load: four threads write (each commit a record with a 6 KiB blob plus a
/// counter update) into a 64 KiB map while four threads read. The map grows many times, each
/// growth waiting for the readers of the moment and re-running the write that hit the limit:
/// every commit lands exactly once, each reader's snapshot is consistent, and `verify` passes.
@Suite struct MapGrowthUnderLoadTests {
    @Test func fourWritersAndFourReadersWhileTheMapGrows() throws {
        var options = Store.Options.testing
        options.mapSize = 64 << 10
        let t = try TemporaryStore(options: options)
        let store = t.store
        let writers = 4, commits = 60
        for w in 0..<writers { try store.insert(["n": 0], as: ref("counter/\(w)")) }
        let failures = Failures()
        let group = DispatchGroup()
        let writersLeft = LockedCounter(writers)
        for w in 0..<writers {
            DispatchQueue.global().async(group: group) {
                defer { writersLeft.decrement() }
                do {
                    for i in 1...commits {
                        let blob = Value.bytes(Data(repeating: UInt8(w * 64 + i % 64), count: 6 << 10))
                        try store.write { txn in
                            try txn.insert(["blob": blob, "writer": .int(Int64(w)), "i": .int(Int64(i))], as: ref("blob/\(w)-\(i)"))
                            try txn.setValue(.int(Int64(i)), forKey: "n", of: ref("counter/\(w)"))
                        }
                    }
                } catch { failures.add("writer \(w): \(error)") }
            }
        }
        for reader in 0..<4 {
            DispatchQueue.global().async(group: group) {
                var reads = 0
                while writersLeft.value > 0 || reads < 20 {
                    do {
                        // A snapshot is consistent: each writer's counter equals its blobs' count,
                        // and the journal holds two entries per commit, after the counters' inserts.
                        try store.read { txn in
                            var total = 0
                            for w in 0..<writers {
                                let n = try txn.value(forKey: "n", of: ref("counter/\(w)"))?.intValue ?? -1
                                total += Int(n)
                                if n > 0, try txn.value(forKey: "i", of: ref("blob/\(w)-\(n)"))?.intValue != n {
                                    failures.add("reader \(reader): counter/\(w) is \(n) but blob/\(w)-\(n) is missing")
                                }
                            }
                            let blobs = try txn.count(ofKind: "blob")
                            let last = try txn.lastSequence()
                            if blobs != total || last != UInt64(writers + 2 * blobs) {
                                failures.add("reader \(reader): \(blobs) blobs, counters sum to \(total), last sequence \(last)")
                            }
                        }
                    } catch { failures.add("reader \(reader): \(error)") }
                    reads += 1
                }
            }
        }
        group.wait()
        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
        #expect(try store.count(ofKind: "blob") == writers * commits)
        #expect(store.environment.currentMapSize >= 1 << 20, "the map grew several times")
        // Every commit is journaled once, under its own commit id, in order.
        let entries = try store.journalEntries()
        #expect(entries.count == writers + 2 * writers * commits)
        #expect(entries.map(\.commitID) == (1...UInt64(writers)).map { $0 } + (UInt64(writers) + 1...UInt64(writers + writers * commits)).flatMap { [$0, $0] })
        let report = try store.verify()
        #expect(report.isHealthy, "\(report.findings)")
        // Reopened by another handle (as another process would), the same records are there.
        let other = try Store(path: t.path, options: options)
        #expect(try other.value(forKey: "i", of: ref("blob/3-\(commits)")) == .int(Int64(commits)))
    }
}

/// A count many threads decrement and read.
private final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count: Int
    init(_ count: Int) { self.count = count }
    func decrement() { lock.withLock { count -= 1 } }
    var value: Int { lock.withLock { count } }
}
