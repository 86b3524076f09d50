import Foundation
#if canImport(Glibc)
import Glibc
#endif
import KVStore

/// A figure measured once per run, kvstore only, against a target (BENCHMARKS.md, "Targets"):
/// cross-process follow latency, replication apply, and dump memory. Numbered after the ratio
/// scenarios, so `--scenario N` selects them too.
struct Figure: Codable {
    let number: Int
    let name: String
    let durability: String
    /// The figure as the table shows it, e.g. "p50 0.9 ms, p99 4.1 ms".
    let result: String
    let target: String
    let met: Bool?
    /// The raw figures (ms, entries/s, MiB, …), for `--json`.
    let figures: [String: Double]
}

/// Runs the measurements selected by the configuration. The replication and dump ones share one
/// store of `bigRecords` records, built once per run under `root`.
struct Figures {
    let config: Configuration
    let root: String
    let firstNumber: Int

    static let count = 3

    func run() throws -> [Figure] {
        func selected(_ offset: Int) -> Bool { config.scenarioFilter?.contains(firstNumber + offset) ?? true }
        guard config.engineFilter == nil || config.engineFilter == EngineName.kvstore else { return [] }
        var results: [Figure] = []
        if selected(0) { results.append(try followLatency()) }
        if selected(1) || selected(2) {
            let path = root + "/big"
            let store = try buildBigStore(at: path)
            if selected(1) {
                results.append(try replication(from: store))
                results.append(try streamApply(from: store))
            }
            if selected(2) { results.append(try dump(path)) }
        }
        for result in results { log("\(result.name): \(result.result)") }
        return results
    }

    /// Another process following the journal (``FollowLatency``), one commit every 3 ms.
    private func followLatency() throws -> Figure {
        // `.full` syncs a commit's meta page after the commit is visible, so a follower may see it
        // before the writer's call returns: the time from the call's start is reported beside.
        let (afterReturn, afterStart) = try FollowLatency.measure(commits: config.followCommits, interval: 3, directory: root, durability: .full)
        let p50 = FollowLatency.percentile(0.5, of: afterReturn), p99 = FollowLatency.percentile(0.99, of: afterReturn)
        let startP50 = FollowLatency.percentile(0.5, of: afterStart), startP99 = FollowLatency.percentile(0.99, of: afterStart)
        return Figure(
            number: firstNumber, name: "another process sees a commit (\(config.followCommits) commits, JournalFollower)",
            durability: "full",
            result: String(format: "p50 %.2f ms, p99 %.2f ms after the write returned; p50 %.2f ms, p99 %.2f ms after it began", p50, p99, startP50, startP99),
            target: "p99 < 20 ms", met: p99 < 20, figures: ["p50Ms": p50, "p99Ms": p99, "fromStartP50Ms": startP50, "fromStartP99Ms": startP99])
    }

    /// `bigRecords` dataset records, 1,000 per transaction, journal on (`.noSync` while loading,
    /// then one sync: the load is not what is measured).
    private func buildBigStore(at path: String) throws -> Store {
        log("building a store of \(config.bigRecords) records for the replication and dump measurements")
        let start = ContinuousClock.now
        var options = Store.Options()
        options.durability = .noSync
        options.mapSize = 4 << 30
        let store = try Store(path: path, options: options)
        for first in stride(from: 0, to: config.bigRecords, by: config.batch) {
            try store.write { txn in
                for index in first ..< min(first + config.batch, config.bigRecords) {
                    try txn.insert(Dataset.values(index), as: Dataset.ref(index))
                }
            }
        }
        try store.sync()
        log("built in \(ContinuousClock.now - start)")
        return store
    }

    /// A ``Replicator`` applying the whole journal of the big store into a new replica (full
    /// sync, 10,000 entries per replica transaction).
    private func replication(from source: Store) throws -> Figure {
        let replica = root + "/replica"
        defer { try? FileManager.default.removeItem(atPath: replica) }
        var options = Replicator.Options()
        options.replicaOptions.mapSize = 4 << 30
        return try applyRate(applier: "the replicator", minimum: 300_000,
                             name: { "replication apply, store to store (\($0) insert entries, Replicator)" }) {
            try Replicator(source: source, replicaPath: replica, options: options).run().applied
        }
    }

    /// Times `apply` (the entries it applied), which must apply every entry of the big store,
    /// and reports entries per wall and per CPU second against `minimum` as measurement 18.
    func applyRate(applier: String, minimum: Double, name: (Int) -> String, _ apply: () throws -> Int) throws -> Figure {
        var applied = 0
        let cpuBefore = Self.processCPUSeconds()
        let elapsed = try ContinuousClock().measure { applied = try apply() }
        let cpu = Self.processCPUSeconds() - cpuBefore
        guard applied == config.bigRecords else { throw SetupError("\(applier) applied \(applied) entries, not \(config.bigRecords)") }
        let rate = Double(applied) / elapsed.seconds
        let cpuRate = Double(applied) / max(cpu, 1e-9)
        return Figure(
            number: firstNumber + 1, name: name(applied),
            durability: "full (replica)", result: "\(Report.format(rate)) entries/s (\(Report.format(cpuRate)) per CPU second)",
            target: "≥ \(Int(minimum / 1000))k entries/s", met: rate >= minimum,
            figures: ["entriesPerSecond": rate.rounded(), "entriesPerCPUSecond": cpuRate.rounded(), "seconds": elapsed.seconds])
    }

    /// User + system time of this process so far (every thread): on a loaded machine, work per
    /// CPU second says more than work per wall second.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// `kvstore dump PATH` of the big store, its output counted here; its peak RSS and peak
    /// anonymous memory (what is not the store's map or the binary) sampled (``MemorySampler``).
    private func dump(_ path: String) throws -> Figure {
        let name = "dump of \(config.bigRecords) records (release kvstore dump), peak RSS"
        guard let binary = KVStoreBinary.locate(config.kvstoreBinary) else {
            log("no release kvstore binary: build it with `swift build -c release --product kvstore` or run Tools/Scripts/bench")
            return Figure(number: firstNumber + 2, name: name, durability: "", result: "skipped: no release kvstore binary",
                               target: "< 64 MiB", met: nil, figures: [:])
        }
        let start = ContinuousClock.now
        let run = try ChildProcess.run(binary, ["dump", path])
        let elapsed = ContinuousClock.now - start
        guard run.status == 0, run.lines >= config.bigRecords else {
            throw SetupError("kvstore dump exited with \(run.status) after \(run.lines) lines (\(config.bigRecords) records)")
        }
        let mebibytes = Double(run.peak.rssKiB) / 1024
        let anonymous = Double(run.peak.anonymousKiB) / 1024
        let rate = Double(config.bigRecords) / elapsed.seconds
        let cpuRate = Double(config.bigRecords) / max(run.cpuSeconds, 1e-9)
        return Figure(
            number: firstNumber + 2, name: name, durability: "",
            result: String(format: "%.1f MiB (anonymous %.1f MiB); ", mebibytes, anonymous)
                + "\(Report.format(rate)) records/s (\(Report.format(cpuRate)) per CPU second)",
            target: "< 64 MiB", met: mebibytes < 64,
            figures: ["peakRSSMiB": mebibytes, "peakAnonymousMiB": anonymous, "recordsPerSecond": rate.rounded(), "recordsPerCPUSecond": cpuRate.rounded()])
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

/// The release `kvstore` binary: the one given, or the repository's `.build/release/kvstore`
/// (the repository found by walking up from this executable).
enum KVStoreBinary {
    static func locate(_ given: String?) -> String? {
        if let given { return FileManager.default.isExecutableFile(atPath: given) ? given : nil }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Tools/Benchmarks/Package.swift").path) {
                let candidate = directory.appendingPathComponent(".build/release/kvstore").path
                return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
            }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}

/// A child process whose standard output lines are counted and whose peak memory is sampled from
/// `/proc/PID/status` while it runs: `VmHWM` (its peak RSS) and `RssAnon` (its private memory,
/// without the file pages it maps). Not `ru_maxrss`: Linux carries the spawning process's own peak
/// RSS into it at `exec` when the child was spawned with `vfork` semantics (`posix_spawn`), so it
/// reports this harness's memory; `wait4` gives the child's CPU time.
enum ChildProcess {
    static func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, lines: Int, peak: MemorySampler.Peak, cpuSeconds: Double) {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw SetupError("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        close(pipe[1])
        guard rc == 0 else {
            close(pipe[0])
            throw SetupError("cannot run \(path): \(String(cString: strerror(rc)))")
        }
        let sampler = MemorySampler(pid: pid)
        var lines = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(pipe[0], buffer.baseAddress, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            for byte in buffer.prefix(count) where byte == 10 { lines += 1 }
        }
        close(pipe[0])
        let peak = sampler.stop()
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return (exit, lines, peak, cpu)
    }
}

/// Samples a process's `VmHWM` (peak RSS) and `RssAnon` every 5 ms from `/proc/PID/status` until
/// stopped (just before the process is reaped, so the last sample is close to its end).
final class MemorySampler: @unchecked Sendable {
    struct Peak {
        var rssKiB = 0
        var anonymousKiB = 0
    }

    private let lock = NSLock()
    private var peak = Peak()
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init(pid: pid_t) {
        Thread { [self] in
            while isRunning {
                if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) {
                    let hwm = Self.kibibytes("VmHWM:", in: text), anonymous = Self.kibibytes("RssAnon:", in: text)
                    lock.lock()
                    peak.rssKiB = max(peak.rssKiB, hwm)
                    peak.anonymousKiB = max(peak.anonymousKiB, anonymous)
                    lock.unlock()
                }
                usleep(5_000)
            }
            done.signal()
        }.start()
    }

    private static func kibibytes(_ field: String, in status: String) -> Int {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return 0 }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    /// Stops sampling. - Returns: the peaks seen.
    func stop() -> Peak {
        lock.lock()
        running = false
        lock.unlock()
        done.wait()
        lock.lock()
        defer { lock.unlock() }
        return peak
    }
}
