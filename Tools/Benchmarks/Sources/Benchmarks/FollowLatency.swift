import Foundation
import KVStore

/// `Benchmarks follow-latency`: how soon another process sees a commit (target: p99 < 20 ms).
///
/// The writer (this process) commits one small change every `--interval-ms` (default 3) to a
/// store, `--commits` times (default 2,000); a follower — this executable spawned again in its
/// `follow-latency-follower` mode, following the journal with ``JournalFollower`` (1–5 ms adaptive
/// polling of LMDB's last transaction id) — notes when it receives each entry. Both read
/// `CLOCK_MONOTONIC`, which is one clock for all processes on Linux. Reported: p50, p90, p99 and
/// max of *receive − commit returned* (what a user waiting on the commit observes) and of
/// *receive − commit began* (the value the writer put in the entry, taken before its commit's syncs).
enum FollowLatency {
    static let usage = """
        usage: Benchmarks follow-latency [--commits N] [--interval-ms M] [--dir PATH] [--durability full|noMetaSync|noSync]
        """

    /// Nanoseconds on the machine-wide monotonic clock.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    static let ref = try! RecordRef("latency/probe")

    /// The writer: makes the store, spawns the follower, commits, and reports.
    static func run(_ arguments: [String]) throws {
        let (commits, interval, directory, durability) = try WriterOptions.parse(arguments, usage: usage).values
        let (afterReturn, afterBegin) = try measure(commits: commits, interval: interval, directory: directory, durability: durability)
        print("follow latency, \(commits) commits in another process (ms): p50 / p90 / p99 / max")
        print("  since commit returned: \(summary(afterReturn))")
        print("  since commit began:    \(summary(afterBegin))")
    }

    /// Commits `commits` times, one every `interval` ms, while a spawned follower receives them.
    /// - Returns: each commit's *receive − commit returned* and *receive − commit began*, in ns.
    static func measure(commits: Int, interval: Double, directory: String, durability: Durability) throws
        -> (afterReturn: [Int64], afterBegin: [Int64])
    {
        let path = (directory as NSString).appendingPathComponent("kvstore-follow-\(getpid())")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = Store.Options()
        options.durability = durability
        let store = try Store(path: path, options: options)
        try store.insert(["began": 0], as: ref)

        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        follower.arguments = ["follow-latency-follower", path, String(commits), durability.rawValue]
        let pipe = Pipe()
        follower.standardOutput = pipe
        try follower.run()
        let output = pipe.fileHandleForReading
        guard String(decoding: output.readData(ofLength: 6), as: UTF8.self) == "ready\n" else {
            throw UsageError("the follower did not start")
        }
        log("follow-latency: \(commits) commits, one every \(interval) ms, durability \(durability.rawValue), in \(directory)")

        var began: [Int64] = []
        var returned: [Int64] = []
        for _ in 0 ..< commits {
            let start = now()
            try store.setValue(.int(start), forKey: "began", of: ref)
            returned.append(now())
            began.append(start)
            if interval > 0 { Thread.sleep(forTimeInterval: interval / 1000) }
        }
        let received = timedSequences(output.readDataToEndOfFile())
        follower.waitUntilExit()
        guard received.count == commits, received.map(\.0) == (2 ... UInt64(commits + 1)).map({ $0 }) else {
            throw UsageError("the follower saw \(received.count) entries, not the \(commits) commits in order")
        }
        return (zip(received, returned).map { max(0, $0.1 - $1) }, zip(received, began).map { $0.1 - $1 })
    }

    /// The follower: follows the journal after the first entry and prints `sequence receivedNs`
    /// per entry once it has them all.
    static func follow(_ arguments: [String]) throws {
        guard arguments.count == 3, let count = Int(arguments[1]), let durability = Durability(rawValue: arguments[2]) else {
            throw UsageError("usage: Benchmarks follow-latency-follower PATH COUNT DURABILITY")
        }
        var options = Store.Options()
        options.createIfMissing = false
        options.durability = durability
        let store = try Store(path: arguments[0], options: options)
        let follower = JournalFollower(store: store, after: 1)
        var received: [(UInt64, Int64)] = []
        received.reserveCapacity(count)
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        try follower.run { batch in
            let time = now()
            for entry in batch { received.append((entry.sequence, time)) }
            if received.count >= count { follower.stop() }
        }
        FileHandle.standardOutput.write(Data(received.map { "\($0.0) \($0.1)\n" }.joined().utf8))
    }

    /// `sequence timeNs` lines, as the spawned followers print them.
    static func timedSequences(_ data: Data) -> [(UInt64, Int64)] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line -> (UInt64, Int64)? in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let sequence = UInt64(parts[0]), let time = Int64(parts[1]) else { return nil }
            return (sequence, time)
        }
    }

    static func summary(_ nanoseconds: [Int64]) -> String {
        [0.5, 0.9, 0.99, 1.0].map { String(format: "%.2f", percentile($0, of: nanoseconds)) }.joined(separator: " / ")
    }

    /// The `p` percentile (nearest rank) of `nanoseconds`, in ms.
    static func percentile(_ p: Double, of nanoseconds: [Int64]) -> Double {
        let sorted = nanoseconds.sorted()
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
        return Double(sorted[max(0, index)]) / 1e6
    }
}

/// The writer's options shared by `follow-latency` and `replication-lag`.
struct WriterOptions {
    var commits = 2_000
    var interval = 3.0
    var directory = FileManager.default.temporaryDirectory.path
    var durability = Durability.full

    var values: (Int, Double, String, Durability) { (commits, interval, directory, durability) }

    static func parse(_ arguments: [String], usage: String) throws -> WriterOptions {
        var options = WriterOptions()
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--commits":
                guard let n = iterator.next().flatMap(Int.init), n > 0 else { throw UsageError("--commits needs a positive number") }
                options.commits = n
            case "--interval-ms":
                guard let ms = iterator.next().flatMap(Double.init), ms >= 0 else { throw UsageError("--interval-ms needs a number") }
                options.interval = ms
            case "--dir":
                guard let path = iterator.next() else { throw UsageError("--dir needs a path") }
                options.directory = path
            case "--durability":
                guard let mode = iterator.next().flatMap(Durability.init(rawValue:)) else {
                    throw UsageError("--durability needs full, noMetaSync or noSync")
                }
                options.durability = mode
            default: throw UsageError("unknown argument '\(argument)'\n\(usage)")
            }
        }
        return options
    }
}
