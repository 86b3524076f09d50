import Foundation
import KVStore

/// `Benchmarks replication-lag`: how soon a following replicator in another process has applied a
/// commit to its replica (issue 5: follow-mode lag under a steady write load).
///
/// The writer (this process) commits one small change every `--interval-ms` (default 3) to a
/// source store, `--commits` times (default 2,000); a `Replicator` in follow mode — this
/// executable spawned again in its `replication-lag-follower` mode — applies them to a replica and
/// notes, after each applied batch, the time and the sequence applied through. Lag of a commit =
/// the first time the replica had applied its sequence − the time its commit returned on the
/// source (`CLOCK_MONOTONIC`, one clock for all processes on Linux). Reported: p50, p90, p99, max.
enum ReplicationLag {
    static let usage = """
        usage: Benchmarks replication-lag [--commits N] [--interval-ms M] [--dir PATH] [--durability full|noMetaSync|noSync]
        """

    static func run(_ arguments: [String]) throws {
        let (commits, interval, directory, durability) = try WriterOptions.parse(arguments, usage: usage).values
        let root = (directory as NSString).appendingPathComponent("kvstore-replication-lag-\(getpid())")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let sourcePath = (root as NSString).appendingPathComponent("source")
        var options = Store.Options()
        options.durability = durability
        let store = try Store(path: sourcePath, options: options)
        let ref = FollowLatency.ref
        try store.insert(["began": 0], as: ref)

        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        follower.arguments = ["replication-lag-follower", sourcePath, (root as NSString).appendingPathComponent("replica"), String(commits + 1), durability.rawValue]
        let pipe = Pipe()
        follower.standardOutput = pipe
        try follower.run()
        let output = pipe.fileHandleForReading
        guard String(decoding: output.readData(ofLength: 6), as: UTF8.self) == "ready\n" else {
            throw UsageError("the replicator did not start")
        }
        log("replication-lag: \(commits) commits, one every \(interval) ms, durability \(durability.rawValue), in \(directory)")
        var returned: [Int64] = []
        for _ in 0 ..< commits {
            let start = FollowLatency.now()
            try store.setValue(.int(start), forKey: "began", of: ref)
            returned.append(FollowLatency.now())
            if interval > 0 { Thread.sleep(forTimeInterval: interval / 1000) }
        }
        let applied = FollowLatency.timedSequences(output.readDataToEndOfFile())
        follower.waitUntilExit()
        guard applied.last?.0 == UInt64(commits + 1) else {
            throw UsageError("the replicator applied through \(applied.last?.0 ?? 0), not \(commits + 1)")
        }
        // Commit i (sequence i + 2) is visible at the first batch applied through it.
        var lags: [Int64] = []
        var batch = applied.startIndex
        for (index, time) in returned.enumerated() {
            let sequence = UInt64(index + 2)
            while applied[batch].0 < sequence { batch += 1 }
            lags.append(max(0, applied[batch].1 - time))
        }
        print("replication lag, \(commits) commits applied by a following replicator in another process (ms): p50 / p90 / p99 / max")
        print("  since commit returned: \(FollowLatency.summary(lags))")
        print("  batches applied: \(applied.count)")
    }

    /// The replicator: follows the source into the replica and prints `appliedSequence timeNs` per
    /// applied batch once the replica has applied through `last`.
    static func follow(_ arguments: [String]) throws {
        guard arguments.count == 4, let last = UInt64(arguments[2]), let durability = Durability(rawValue: arguments[3]) else {
            throw UsageError("usage: Benchmarks replication-lag-follower SOURCE REPLICA LAST DURABILITY")
        }
        var sourceOptions = Store.Options()
        sourceOptions.createIfMissing = false
        sourceOptions.durability = durability
        var options = Replicator.Options()
        options.follow = true
        options.replicaOptions.durability = durability
        let replicator = Replicator(source: try Store(path: arguments[0], options: sourceOptions), replicaPath: arguments[1], options: options)
        var applied: [(UInt64, Int64)] = []
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        try replicator.run { status in
            applied.append((status.appliedSequence, FollowLatency.now()))
            if status.appliedSequence >= last { replicator.stop() }
        }
        FileHandle.standardOutput.write(Data(applied.map { "\($0.0) \($0.1)\n" }.joined().utf8))
    }
}
