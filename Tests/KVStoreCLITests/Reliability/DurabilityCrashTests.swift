import Foundation
import KVStore
import Testing
import TestSupport

/// The promise the relaxed and pipelined commits share with every durability: a killed process
/// never loses a commit it acknowledged. `kvstore torture` writers are killed with SIGKILL at
/// random moments; after each kill the store opens healthy and holds every acknowledged commit.
@Suite(.tags(.subprocess, .crash), .skippedByTag) struct DurabilityCrashTests {
    /// `.periodicSync`: commits do not sync, the OS holds the pages: a kill loses nothing.
    @Test func periodicSyncLosesNoAcknowledgedCommitToAKill() throws {
        let rig = try CrashRig("periodicSync single sets")
        let store = rig.path("store")
        for round in 1...rig.schedule.kills {
            let run = "r\(round)"
            let writer = try rig.start(["torture", store, "--run", run, "--commits", "1000000", "--durability", "periodicSync"])
            rig.kill(writer, upTo: 0.03) { writer.lines.count >= 1 }
            try rig.checkStore(store)
            try rig.checkTortureRun(run, of: writer, in: store)
        }
        try rig.expectVerifies(store)
        rig.finish()
    }

    /// Async writes, 32 in flight, at full durability and at `.periodicSync`.
    @Test(arguments: ["full", "periodicSync"]) func overlappingAsyncWritesLoseNoAcknowledgedCommitToAKill(durability: String) throws {
        let rig = try CrashRig("\(durability) async writes in flight")
        let store = rig.path("store")
        for round in 1...rig.schedule.kills {
            let run = "r\(round)"
            let writer = try rig.start(["torture", store, "--run", run, "--commits", "1000000", "--in-flight", "32", "--durability", durability])
            rig.kill(writer, upTo: 0.03) { writer.lines.count >= 1 }
            try rig.checkStore(store)
            let acknowledged = Set(writer.lines.compactMap { line -> Int? in
                let parts = line.split(separator: " ")
                return parts.count == 2 && parts[0] == run ? Int(parts[1]) : nil
            })
            let found = try rig.open(store).read { txn in
                Set(try txn.records(ofKind: "item").filter { $0.ref.id.hasPrefix("\(run)-") }.compactMap { $0.values["commit"]?.intValue.map(Int.init) })
            }
            #expect(!acknowledged.isEmpty && acknowledged.isSubset(of: found),
                    "\(rig.schedule): \(run): acknowledged but missing: \(acknowledged.subtracting(found).sorted().prefix(5))")
        }
        try rig.expectVerifies(store)
        rig.finish()
    }
}
