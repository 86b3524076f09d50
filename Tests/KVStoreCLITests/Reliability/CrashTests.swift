import Foundation
import KVStore
import Testing
import TestSupport

/// Writers killed with SIGKILL at random moments while they write, a few times per workload
/// (`KVSTORE_CRASH_KILLS=N` for more: `Tools/Scripts/reliability crash-long`). After every kill the
/// store opens, `verify` passes, the journal audit finds journal and records in exact agreement,
/// every acknowledged commit is there and each commit is whole; a killed replica resumes
/// without loss or duplicates. Each kill hits a process that had acknowledged a commit of its
/// own and was still at work; a failure names the seed of the delays (`KVSTORE_CRASH_SEED`).
@Suite(.tags(.subprocess, .crash), .skippedByTag) struct CrashTests {
    /// `kvstore torture`: one single-key set per commit, each acknowledged once `write` returned.
    @Test func singleSetCommits() throws {
        try killTortureWriters(CrashRig("single sets"), batch: 1)
    }

    /// `kvstore torture --batch 8`: each commit sets a key and inserts eight records.
    @Test func batchedTransactions() throws {
        try killTortureWriters(CrashRig("batched transactions"), batch: 8)
    }

    private func killTortureWriters(_ rig: CrashRig, batch: Int) throws {
        let store = rig.path("store")
        for round in 1...rig.schedule.kills {
            let run = "r\(round)"
            let writer = try rig.start(["torture", store, "--run", run, "--commits", "1000000", "--batch", String(batch)])
            rig.kill(writer, upTo: 0.03) { writer.lines.count >= 1 }
            try rig.checkStore(store)
            try rig.checkTortureRun(run, of: writer, batch: batch, in: store)
        }
        try rig.expectVerifies(store)
        rig.finish()
    }

    /// `kvstore load --batch 10`: what is loaded after the kill is a whole number of batches,
    /// the records of the file in order from its first line, and at least what was seen before.
    @Test func loadInBatches() throws {
        let rig = try CrashRig("load --batch 10")
        let store = rig.path("store")
        let opened = try rig.open(store, creating: true)
        for round in 1...rig.schedule.kills {
            let kind = "load\(round)"
            var lines = ""
            for i in 0..<20_000 { lines += #"{"kind":"\#(kind)","id":"\#(i)","values":{"i":\#(i),"label":"line \#(i)"}}"# + "\n" }
            let file = try rig.dir.write(lines, to: "\(kind).jsonl")
            let loader = try rig.start(["load", store, file, "--batch", "10"])
            var seen = 0
            rig.kill(loader, upTo: 0.03) {
                seen = (try? opened.count(ofKind: kind)) ?? 0
                return seen >= 1
            }
            try rig.checkStore(store)
            let ids = try opened.read { txn in try txn.refs(ofKind: kind).map(\.id) }
            #expect(ids.count >= seen && ids.count % 10 == 0 && ids.count < 20_000, "\(rig.schedule): \(ids.count) records loaded, \(seen) seen before the kill")
            #expect(Set(ids) == Set((0..<ids.count).map(String.init)), "\(rig.schedule): not the file's first \(ids.count) lines")
        }
        try rig.expectVerifies(store)
        rig.finish()
    }

    /// `journal export --follow | journal apply` from a source a writer commits to: the apply is
    /// killed, then started again from its checkpoint.
    @Test func journalApplyOfALiveStream() throws {
        let rig = try CrashRig("journal apply")
        let (source, replica) = (rig.path("source"), rig.path("replica"))
        try killReplicators(rig, source: source, replica: replica) { checkpoint in
            let export = try rig.start(["journal", "export", source, "--since", String(checkpoint + 1), "--follow"], readingOutput: false)
            let apply = try rig.start(["journal", "apply", replica, "-"], readingOutput: false, input: export.standardOutput)
            return (apply, { _ = export.stop(signal: SIGKILL) })  // its reader is gone: it may be blocked on a full pipe
        }
        let stream = rig.dir.path("rest.stream")
        let since = String(rig.appliedThrough(replica) + 1)
        let export = try KVStoreExecutable.run(["journal", "export", source, "--since", since], in: rig.dir, output: URL(fileURLWithPath: stream))
        #expect(export.status == 0, "\(export)")
        try rig.dir.succeed("journal", "apply", replica, stream)
        try expectIdentical(source, replica, rig: rig)
    }

    /// `replicate --follow` from a source a writer commits to: the replicator is killed, then
    /// started again.
    @Test func replicationApply() throws {
        let rig = try CrashRig("replicate --follow")
        let (source, replica) = (rig.path("source"), rig.path("replica"))
        try killReplicators(rig, source: source, replica: replica) { _ in
            (try rig.start(["replicate", source, replica, "--follow"]), {})
        }
        try rig.dir.succeed("replicate", source, replica)
        try expectIdentical(source, replica, rig: rig)
    }

    /// With a writer committing to `source`, kill after kill: starts what `start` makes from the
    /// replica's checkpoint, kills it once it applied something, runs the clean-up `start` gave,
    /// and checks the replica with the writer paused (SIGSTOP: the source's journal, replayed by
    /// each check, grows only while a replicator runs). Then kills the writer and checks the source.
    ///
    /// The writer is paused too from the victim's start until its first commit, and writes on
    /// while the victim is killed: the victim starts behind by what the writer wrote since the
    /// last kill, no more. (Left running, the writer outran `export --follow | journal apply`, so
    /// each first commit was a lag that kept growing, up to 10,000 entries: seconds per kill.)
    private func killReplicators(
        _ rig: CrashRig, source: String, replica: String,
        start: (UInt64) throws -> (victim: BackgroundCommand, cleanUp: () -> Void)
    ) throws {
        _ = try rig.open(source, creating: true)
        let writer = try rig.start(["torture", source, "--run", "w", "--commits", "1000000", "--batch", "3"])
        for _ in 1...rig.schedule.kills {
            let before = rig.appliedThrough(replica)
            #expect(waitUntil { lastSequence(of: source) > before }, "\(rig.schedule): the source's writer wrote nothing: \(writer.stderr)")
            writer.send(SIGSTOP)
            let (victim, cleanUp) = try start(before)
            var observed: UInt64 = 0
            rig.kill(victim, upTo: 0.05) {
                observed = rig.appliedThrough(replica)
                if observed > before { writer.send(SIGCONT) }
                return observed > before
            }
            cleanUp()
            writer.send(SIGSTOP)
            defer { writer.send(SIGCONT) }
            try rig.checkStore(replica)
            try rig.checkReplica(replica, of: source, observed: observed)
        }
        try finishSource(source, writer: writer, rig: rig)
    }

    /// The last sequence of the store at `path` (0 when it cannot be read).
    private func lastSequence(of path: String) -> UInt64 {
        (try? Store(path: path, options: CrashRig.readOnly).read { try $0.lastSequence() }) ?? 0
    }

    /// Kills the source's writer too (at least one commit after the replica's last kill) and
    /// checks the source.
    private func finishSource(_ source: String, writer: BackgroundCommand, rig: CrashRig) throws {
        let acknowledged = writer.lines.count
        _ = writer.stop(signal: SIGKILL)
        #expect(writer.endedBySignal, "the source's writer ended by itself: \(writer.stderr)")
        try rig.checkStore(source)
        #expect(try rig.checkTortureRun("w", of: writer, batch: 3, in: source) >= acknowledged)
    }

    private func expectIdentical(_ source: String, _ replica: String, rig: CrashRig) throws {
        let diff = try rig.dir.kvstore("diff", source, replica)
        #expect(diff.status == 0 && diff.stdout.isEmpty, "\(rig.schedule): \(diff)")
        try rig.expectVerifies(replica)
        try rig.checkStore(replica)
        rig.finish()
    }
}
