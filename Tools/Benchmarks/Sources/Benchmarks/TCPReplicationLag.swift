import Foundation
import KVStore

/// `Benchmarks tcp-lag --kvstore PATH`: follow-mode lag over TCP (target: p99 < 50 ms on
/// loopback, BENCHMARKS.md "Targets"), through the real processes: `kvstore serve` on the source,
/// `kvstore replicate tcp://… --follow` into a replica, and a follower of the replica's journal
/// (this executable in its `follow-latency-follower` mode, 1–5 ms polling).
///
/// The writer (this process) commits one small change every `--interval-ms` (default 3) to the
/// source, `--commits` times (default 2,000). Reported: p50, p90, p99 and max of *seen in the
/// replica's journal − commit returned on the source*: the server's poll of the source, the
/// stream, the replica's apply (a transaction with its checkpoint, full sync), and the follower's
/// poll of the replica.
enum TCPReplicationLag {
    static let usage = """
        usage: Benchmarks tcp-lag --kvstore PATH [--commits N] [--interval-ms M] [--dir PATH] [--durability full|noMetaSync|noSync]
        """

    static func run(_ arguments: [String]) throws {
        // --kvstore PATH is this mode's own; the rest are the writer's options.
        var rest = arguments
        guard let flag = rest.firstIndex(of: "--kvstore"), flag + 1 < rest.count else { throw UsageError(usage) }
        let kvstore = rest[flag + 1]
        rest.removeSubrange(flag...(flag + 1))
        let (commits, interval, directory, durability) = try WriterOptions.parse(rest, usage: usage).values
        let root = (directory as NSString).appendingPathComponent("kvstore-tcp-lag-\(getpid())")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let sourcePath = (root as NSString).appendingPathComponent("source")
        let replicaPath = (root as NSString).appendingPathComponent("replica")
        var options = Store.Options()
        options.durability = durability                  // the source's writer (replicate syncs fully)
        let source = try Store(path: sourcePath, options: options)
        try source.insert(["began": 0], as: FollowLatency.ref)

        let server = try spawn(kvstore, ["serve", sourcePath, "--listen", "127.0.0.1:0", "--quiet"])
        defer { server.process.terminate(); server.process.waitUntilExit() }
        let line = String(decoding: server.output.availableData, as: UTF8.self)
        guard line.hasPrefix("listening on "), let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
            throw UsageError("kvstore serve did not start: \(line)")
        }
        let replicate = try spawn(kvstore, ["replicate", "tcp://127.0.0.1:\(port)", replicaPath, "--follow"])
        defer { replicate.process.terminate(); replicate.process.waitUntilExit() }
        while !hasApplied(replicaPath) { Thread.sleep(forTimeInterval: 0.01) }

        let follower = try spawn(CommandLine.arguments[0], ["follow-latency-follower", replicaPath, String(commits), durability.rawValue])
        guard String(decoding: follower.output.readData(ofLength: 6), as: UTF8.self) == "ready\n" else {
            throw UsageError("the follower did not start")
        }
        log("tcp-lag: \(commits) commits, one every \(interval) ms, source durability \(durability.rawValue), serve → replicate --follow on port \(port)")
        var returned: [Int64] = []
        for _ in 0 ..< commits {
            try source.setValue(.int(FollowLatency.now()), forKey: "began", of: FollowLatency.ref)
            returned.append(FollowLatency.now())
            if interval > 0 { Thread.sleep(forTimeInterval: interval / 1000) }
        }
        let received = FollowLatency.timedSequences(follower.output.readDataToEndOfFile()).map(\.1)
        follower.process.waitUntilExit()
        guard received.count == commits else {
            throw UsageError("the replica's follower saw \(received.count) entries, not the \(commits) commits")
        }
        print("follow-mode lag over TCP, \(commits) commits (ms): p50 / p90 / p99 / max")
        print("  seen in the replica since the commit returned: \(FollowLatency.summary(zip(received, returned).map { max(0, $0 - $1) }))")
    }

    /// Whether the replica exists and has applied the source's first commit.
    private static func hasApplied(_ path: String) -> Bool {
        var options = Store.Options()
        options.createIfMissing = false
        options.readOnly = true
        guard FileManager.default.fileExists(atPath: path + "/data.mdb"), let store = try? Store(path: path, options: options) else { return false }
        return ((try? store.read { try $0.lastSequence() }) ?? 0) >= 1
    }

    private static func spawn(_ executable: String, _ arguments: [String]) throws -> (process: Process, output: FileHandle) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, pipe.fileHandleForReading)
    }
}
