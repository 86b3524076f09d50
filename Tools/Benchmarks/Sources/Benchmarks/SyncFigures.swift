import Foundation
import KVStore
import KVStoreSync
import PostgreSQLFixture

/// Sync through a PostgreSQL hub (issue 16), measured once per run against a target, numbered
/// after the feed-reader scenarios: write-to-visible latency between two following stores,
/// upload and download throughput, and convergence of 8 followers after a burst. The hub is a
/// throwaway local cluster (``SyncHub``); without PostgreSQL the rows say so and are skipped.
struct SyncFigures {
    let config: Configuration
    let root: String
    let firstNumber: Int

    static let count = 3

    /// Writes to store A whose arrival on store B is timed, one every `latencyInterval` ms.
    var latencyWrites: Int { config.quick ? 50 : 300 }
    let latencyInterval = 10.0
    /// Entries uploaded by one store and downloaded by another.
    var transferEntries: Int { config.quick ? 5_000 : 100_000 }
    /// Stores following the hub in the convergence figure, and the writes of the burst (spread
    /// evenly over their writers).
    let followers = 8
    var burstWrites: Int { config.quick ? 1_000 : 10_000 }

    func run() throws -> [Figure] {
        let selected = (0 ..< Self.count).filter { config.scenarioFilter?.contains(firstNumber + $0) ?? true }
        guard !selected.isEmpty, config.engineFilter == nil || config.engineFilter == EngineName.kvstore else { return [] }
        if let missing = PostgreSQLCluster.notInstalled {
            log("sync figures skipped: \(missing)")
            return selected.map { Figure(number: firstNumber + $0, name: name($0), durability: "", result: "skipped: PostgreSQL is not installed",
                                         target: target($0), met: nil, figures: [:]) }
        }
        let start = ContinuousClock.now
        let hub = try SyncHub()
        log("sync figures: a PostgreSQL hub on 127.0.0.1:\(hub.cluster.port), started in \(ContinuousClock.now - start)")
        var results: [Figure] = []
        for offset in selected {
            let figure: Figure
            switch offset {
            case 0: figure = try writeToVisible(hub)
            case 1: figure = try transfer(hub)
            default: figure = try convergence(hub)
            }
            log("\(figure.name): \(figure.result)")
            results.append(figure)
        }
        return results
    }

    func name(_ offset: Int) -> String {
        switch offset {
        case 0: "sync: a write on store A visible on store B, both following one hub (\(latencyWrites) writes)"
        case 1: "sync: upload, then download and apply, of \(transferEntries) entries (SyncEngine.sync)"
        default: "sync: \(followers) stores following one hub converge after a burst of \(burstWrites) writes"
        }
    }

    func target(_ offset: Int) -> String {
        switch offset {
        case 0: "p99 < 50 ms"
        case 1: "≥ 50k entries/s each way"
        default: "(none)"
        }
    }

    /// Store A commits a change every ``latencyInterval`` ms while both stores follow the hub;
    /// a change is visible on B when B's follower reports the pass that applied it. Latency =
    /// that time − the time A's commit returned.
    private func writeToVisible(_ hub: SyncHub) throws -> Figure {
        let configuration = try hub.configuration(schema: "latency")
        let (a, engineA) = try SyncHub.syncedStore(root + "/latency-a", hub: configuration, durability: .full)
        let (b, engineB) = try SyncHub.syncedStore(root + "/latency-b", hub: configuration, durability: .full)
        let probe = try RecordRef("note/probe")
        try a.insert(["n": 0], as: probe)
        let seen = SeenValues()
        let followers = Followers()
        followers.start(engineA)
        followers.start(engineB) { event in
            guard case .synced = event, case .int(let n)? = try? b.value(forKey: "n", of: probe) else { return }
            seen.note(n, at: FollowLatency.now())
        }
        defer { try? followers.stop() }
        try waitUntil("store B has the probe record") { seen.latest >= 0 }
        var returned: [Int64] = []
        for n in 1 ... latencyWrites {
            try a.setValue(.int(Int64(n)), forKey: "n", of: probe)
            returned.append(FollowLatency.now())
            usleep(useconds_t(latencyInterval * 1000))
        }
        try waitUntil("store B has the last write") { seen.latest >= Int64(latencyWrites) }
        try followers.stop()
        let latencies = seen.latencies(returned)
        let p50 = FollowLatency.percentile(0.5, of: latencies), p99 = FollowLatency.percentile(0.99, of: latencies)
        let max = FollowLatency.percentile(1, of: latencies)
        return Figure(number: firstNumber, name: name(0), durability: "full", result: String(format: "p50 %.1f ms, p99 %.1f ms, max %.1f ms", p50, p99, max),
                      target: target(0), met: p99 < 50, figures: ["p50Ms": p50, "p99Ms": p99, "maxMs": max])
    }
}

/// The values of the probe key store B held after each pass, with the time.
final class SeenValues: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [(value: Int64, time: Int64)] = []

    func note(_ value: Int64, at time: Int64) {
        lock.withLock { if value > (seen.last?.value ?? -1) { seen.append((value, time)) } }
    }

    var latest: Int64 { lock.withLock { seen.last?.value ?? -1 } }

    /// For write n (1-based, returned at `returned[n - 1]`): the first time a value ≥ n was seen,
    /// minus the time it returned, in ns.
    func latencies(_ returned: [Int64]) -> [Int64] {
        let seen = lock.withLock { self.seen }
        var index = 0
        return returned.enumerated().map { offset, time in
            while seen[index].value < Int64(offset + 1) { index += 1 }
            return max(0, seen[index].time - time)
        }
    }
}
