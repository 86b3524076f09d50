import Foundation
import KVStore
#if canImport(Glibc)
import Glibc
#endif

/// `Benchmarks live-query [--records N] [--commits N]`: the CPU a live query spends per commit
/// (target: one commit changing 1 of 100k records updates a 50-row live result in < 100 µs of CPU).
///
/// A store of N records (default 100,000, `.noSync`, `n` random below 400,000) is observed with
/// `n < 500000 sorted by n desc, limit 50`; then each commit sets `n` of one random record to a
/// value above every other (it enters the page at the top and pushes the last row out), and the
/// benchmark waits for the change set before the next commit. The figure is the follower thread's
/// CPU time (`CLOCK_THREAD_CPUTIME_ID`, read in the callback) per commit: the journal poll that
/// saw the commit, the record evaluated again, the ordered rows updated, the page compared and the
/// changed record decoded — and the idle polls while the commit was being written (every 0.5 ms,
/// each an `mdb_env_info` and a `stat`), so it is an upper bound of the update step.
enum LiveQueryUpdate {
    static func run(_ arguments: [String]) throws {
        func option(_ name: String, _ fallback: Int) -> Int {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? fallback
        }
        let (count, commits) = (option("--records", 100_000), option("--commits", 2_000))
        let directory = NSTemporaryDirectory() + "kvstore-live-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = Store.Options()
        options.durability = .noSync
        let store = try Store(path: directory, options: options)
        var random = SystemRandomNumberGenerator()
        for start in stride(from: 0, to: count, by: 10_000) {
            try store.write { txn in
                for n in start ..< min(start + 10_000, count) {
                    try txn.insert(["n": .int(Int64.random(in: 0 ..< 400_000, using: &random)), "title": .string("item \(n)")], as: RecordRef(kind: "item", id: String(n)))
                }
            }
        }
        let query = RecordQuery(
            kind: "item", where: try KeyPathPredicate("n < 500000"), sortedBy: [try KeyPathSort(parsing: "n:desc")], limit: 50)
        let delivered = DispatchSemaphore(value: 0)
        let cpu = CPUTimes()
        var follow = JournalFollowOptions()
        follow.pollInterval = .microseconds(500) ... .microseconds(500)
        let token = try store.observe(query, options: follow) { _ in
            cpu.append(threadCPUTime())
            delivered.signal()
        }
        delivered.wait()
        for commit in 0 ..< commits {
            let id = String(Int.random(in: 0 ..< count, using: &random))
            try store.write { try $0.setValue(.int(Int64(400_000 + commit)), forKey: "n", of: RecordRef(kind: "item", id: id)) }
            delivered.wait()
        }
        Thread.sleep(forTimeInterval: 0.05)
        token.cancel()
        let times = cpu.all
        let total = (times.last ?? 0) - (times.first ?? 0)
        print(String(format: "live query, %d records, limit 50: %d commits, %d change sets, %.1f µs CPU per commit (follower thread)",
                     count, commits, times.count - 1, total / Double(commits) * 1e6))
    }

    /// The calling thread's CPU time, in seconds.
    static func threadCPUTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    final class CPUTimes: @unchecked Sendable {
        private let lock = NSLock()
        private var times: [Double] = []
        func append(_ time: Double) { lock.withLock { times.append(time) } }
        var all: [Double] { lock.withLock { times } }
    }
}
