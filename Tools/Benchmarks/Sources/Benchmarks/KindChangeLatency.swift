import Foundation
import KVStore

/// `Benchmarks kind-change-latency [--commits N] [--interval-ms M] [--idle-seconds S] [--dir PATH]`:
/// how soon a `store.kindChanges(_:)` sequence delivers a commit made in this process and one made
/// by another process, and what an idle sequence costs.
///
/// Each commit sets a `probe/p` record's `n`; the latency is *element received − commit returned*
/// (clamped at 0: an in-process commit may wake the sequence before `write` returns) on the
/// machine-wide monotonic clock. The other process is this executable again, in its
/// `kind-change-latency-writer` mode, printing `commitID returnedNs` per commit. The idle cost is
/// the context switches of all this process's threads and its CPU time over `--idle-seconds`
/// while one sequence waits and nothing commits.
enum KindChangeLatency {
    static let usage = "usage: Benchmarks kind-change-latency [--commits N] [--interval-ms M] [--idle-seconds S] [--dir PATH]"
    static let probe = try! RecordRef("probe/p")

    static func run(_ arguments: [String]) throws {
        var commits = 300, interval = 3.0, idle = 10.0
        var directory = FileManager.default.temporaryDirectory.path
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard let value = iterator.next() else { throw UsageError(usage) }
            switch argument {
            case "--commits": commits = try positive(Int(value))
            case "--interval-ms": interval = try positive(Double(value))
            case "--idle-seconds": idle = try positive(Double(value))
            case "--dir": directory = value
            default: throw UsageError(usage)
            }
        }
        let (count, pause, seconds) = (commits, interval, idle)
        let path = (directory as NSString).appendingPathComponent("kvstore-kind-latency-\(getpid())")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try Store(path: path)
        try store.insert(["n": 0], as: probe)

        let (switches, cpu) = try blocking { try await idleCost(store, seconds: seconds) }
        print(String(format: "idle kind change sequence, %.0f s: %.1f context switches/s (all threads), %.2f ms CPU/s", idle, switches, cpu))
        let local = try blocking { try await latency(store, commits: count) { try commitLocally(store, commits: count, interval: pause) } }
        print("kind change latency, \(commits) commits in this process (ms): p50 / p90 / p99 / max: \(FollowLatency.summary(local))")
        let other = try blocking { try await latency(store, commits: count) { try commitElsewhere(path, commits: count, interval: pause) } }
        print("kind change latency, \(commits) commits in another process (ms): p50 / p90 / p99 / max: \(FollowLatency.summary(other))")
    }

    /// The writer process: `commits` commits, one every `interval` ms; prints `commitID returnedNs`.
    static func write(_ arguments: [String]) throws {
        guard arguments.count == 3, let commits = Int(arguments[1]), let interval = Double(arguments[2]) else {
            throw UsageError("usage: Benchmarks kind-change-latency-writer PATH COMMITS INTERVAL_MS")
        }
        var options = Store.Options()
        options.createIfMissing = false
        let lines = try commitLocally(try Store(path: arguments[0], options: options), commits: commits, interval: interval)
        FileHandle.standardOutput.write(Data(lines.map { "\($0.0) \($0.1)\n" }.joined().utf8))
    }

    /// Commits in this process. - Returns: each commit's id and when its `write` returned.
    static func commitLocally(_ store: Store, commits: Int, interval: Double) throws -> [(UInt64, Int64)] {
        try (0 ..< commits).map { i in
            let commit = try store.write { txn in
                try txn.setValue(.int(Int64(i + 1)), forKey: "n", of: probe)
                return txn.commitID!
            }
            defer { Thread.sleep(forTimeInterval: interval / 1000) }
            return (commit, FollowLatency.now())
        }
    }

    /// Commits in a spawned writer process. - Returns: what it printed.
    static func commitElsewhere(_ path: String, commits: Int, interval: Double) throws -> [(UInt64, Int64)] {
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        writer.arguments = ["kind-change-latency-writer", path, String(commits), String(interval)]
        let pipe = Pipe()
        writer.standardOutput = pipe
        try writer.run()
        let lines = FollowLatency.timedSequences(pipe.fileHandleForReading.readDataToEndOfFile())
        writer.waitUntilExit()
        return lines
    }

    /// Runs `commit` while a sequence receives; latencies matched by commit id, in ns.
    static func latency(_ store: Store, commits: Int, _ commit: @escaping @Sendable () throws -> [(UInt64, Int64)]) async throws -> [Int64] {
        let received = Task {
            var times: [UInt64: Int64] = [:]
            for try await changes in store.kindChanges("probe", carrying: ["n"]) {
                times[changes.commitID] = FollowLatency.now()
                if changes.values["p"]?["n"] == .int(Int64(commits)) { break }
            }
            return times
        }
        try await Task.sleep(for: .milliseconds(100))  // the sequence started
        let returned = try await Task.detached { try commit() }.value
        let times = try await received.value
        // A commit the sequence coalesced with the next (it was busy) has no time of its own.
        if times.count < returned.count { log("kind-change-latency: \(returned.count - times.count) commits coalesced") }
        return returned.compactMap { commit, time in times[commit].map { max(0, $0 - time) } }
    }

    /// Context switches per second and CPU ms per second of this process while a sequence idles.
    static func idleCost(_ store: Store, seconds: Double) async throws -> (Double, Double) {
        let waiting = Task { for try await _ in store.kindChanges("probe") {} }
        try await Task.sleep(for: .milliseconds(500))
        let (switches, cpu) = (contextSwitches(), cpuMilliseconds())
        try await Task.sleep(for: .seconds(seconds))
        let result = (Double(contextSwitches() - switches) / seconds, (cpuMilliseconds() - cpu) / seconds)
        waiting.cancel()
        _ = try? await waiting.value
        return result
    }

    /// Voluntary and involuntary context switches of all of this process's threads so far.
    static func contextSwitches() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.reduce(0) { sum, task in
            let status = (try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)) ?? ""
            return sum + status.split(separator: "\n").filter { $0.contains("ctxt_switches") }
                .compactMap { Int($0.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") }.reduce(0, +)
        }
    }

    /// User and system CPU time of this process so far, in ms.
    static func cpuMilliseconds() -> Double { Figures.processCPUSeconds() * 1000 }

    static func positive<N: Numeric & Comparable>(_ value: N?) throws -> N {
        guard let value, value > 0 else { throw UsageError(usage) }
        return value
    }

    /// Runs `body` to its end from synchronous code.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<T, any Error>?
        Task {
            do { result = .success(try await body()) } catch { result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try result!.get()
    }
}
