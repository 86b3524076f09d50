import Foundation
import KVStore
import KVStoreSync

extension SyncFigures {
    /// Store A (loaded offline, `.noSync` while loading) uploads ``transferEntries`` insertions
    /// in one pass; then store B, which syncs already and is empty, downloads and applies them in
    /// one pass (default durability: a commit per page of 1,000). Each pass timed alone.
    func transfer(_ hub: SyncHub) throws -> Figure {
        let configuration = try hub.configuration(schema: "transfer")
        let (a, engineA) = try SyncHub.syncedStore(root + "/transfer-a", hub: configuration, durability: .noSync)
        let (b, engineB) = try SyncHub.syncedStore(root + "/transfer-b", hub: configuration, durability: .full)
        let entries = transferEntries
        for first in stride(from: 0, to: entries, by: 1_000) {
            try a.write { txn in
                for n in first ..< min(first + 1_000, entries) {
                    try txn.insert(["n": .int(Int64(n)), "title": .string("note \(n)"), "done": .bool(n % 3 == 0)], as: try RecordRef("note/n\(n)"))
                }
            }
        }
        try a.sync()
        let (up, upCPU) = try timed { try blocking { try await engineA.sync() } }
        guard up.report.uploadedNew == entries else { throw SetupError("the upload sent \(up.report.uploadedNew) new entries, not \(entries)") }
        let (down, downCPU) = try timed { try blocking { try await engineB.sync() } }
        guard down.report.applied == entries, try b.read({ try $0.count(ofKind: "note") }) == entries else {
            throw SetupError("the download applied \(down.report.applied) entries, not \(entries)")
        }
        let upRate = Double(entries) / up.seconds, downRate = Double(entries) / down.seconds
        return Figure(
            number: firstNumber + 1, name: name(1), durability: "full (B)",
            result: "upload \(Report.format(upRate)) entries/s (\(Report.format(Double(entries) / upCPU)) per CPU second of this process), "
                + "download \(Report.format(downRate)) entries/s (\(Report.format(Double(entries) / downCPU)) per CPU second)",
            target: target(1), met: upRate >= 50_000 && downRate >= 50_000,
            figures: ["uploadEntriesPerSecond": upRate.rounded(), "downloadEntriesPerSecond": downRate.rounded(),
                      "uploadSeconds": up.seconds, "downloadSeconds": down.seconds])
    }

    /// ``followers`` stores follow one hub; then each commits its share of ``burstWrites``
    /// insertions of records of its own, one per commit, from a thread of its own, all at once.
    /// Converged: every store holds every record (checked every 5 ms), and all hold the same.
    func convergence(_ hub: SyncHub) throws -> Figure {
        let configuration = try hub.configuration(schema: "convergence")
        let stores = try (0 ..< followers).map { try SyncHub.syncedStore(root + "/converge-\($0)", hub: configuration, durability: .full) }
        let running = Followers()
        for (_, engine) in stores { running.start(engine) }
        defer { try? running.stop() }
        let share = burstWrites / followers, total = share * followers
        let shared = Shared(stores.map(\.0))
        let start = ContinuousClock.now
        try onThreads(followers) { writer in
            let store = shared.value[writer]
            for n in 0 ..< share {
                try store.insert(["n": .int(Int64(n)), "by": .int(Int64(writer))], as: try RecordRef("note/w\(writer)-\(n)"))
            }
        }
        let burst = ContinuousClock.now - start
        try waitUntil("every store holds the burst's \(total) records", every: 5) {
            try stores.allSatisfy { store, _ in try store.read { txn in try txn.count(ofKind: "note") } == total }
        }
        let converged = ContinuousClock.now - start
        try running.stop()
        let first = try Self.records(stores[0].0)
        for (store, _) in stores.dropFirst() {
            guard try Self.records(store) == first else { throw SetupError("store \(store.path) holds other records than \(stores[0].0.path)") }
        }
        let after = (converged - burst).seconds * 1000
        return Figure(
            number: firstNumber + 2, name: name(2), durability: "full",
            result: String(format: "converged %.2f s after the burst began (the burst took %.2f s; %.0f ms after its last write)",
                           converged.seconds, burst.seconds, after),
            target: target(2), met: nil, figures: ["convergedSeconds": converged.seconds, "burstSeconds": burst.seconds, "afterBurstMs": after])
    }

    /// `body`'s result, its wall time in seconds and this process's CPU seconds meanwhile.
    private func timed<T>(_ body: () throws -> T) throws -> ((report: T, seconds: Double), Double) {
        let cpu = Figures.processCPUSeconds(), start = ContinuousClock.now
        let result = try body()
        return ((result, (ContinuousClock.now - start).seconds), Figures.processCPUSeconds() - cpu)
    }

    private static func records(_ store: Store) throws -> [String: [String: Value]] {
        try store.read { txn in
            Dictionary(uniqueKeysWithValues: try txn.refs(ofKind: "note").map { ($0.description, try txn.record($0) ?? [:]) })
        }
    }
}
