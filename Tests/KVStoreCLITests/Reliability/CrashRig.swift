import Foundation
import KVStore
import Testing
import TestSupport

/// What the crash tests share: killing a process mid-work, and the checks after each kill.
///
/// ```swift
/// let rig = try CrashRig("single sets")
/// let writer = try rig.start(["torture", rig.store, "--run", "r1", "--commits", "1000000"])
/// rig.kill(writer, upTo: 0.02) { writer.lines.count >= 1 }
/// try rig.checkStore(rig.store)
/// ```
final class CrashRig {
    let dir: TestDirectory
    var schedule: CrashSchedule
    /// Kills that hit a process mid-work (counted by ``kill(_:upTo:acknowledged:)``).
    private(set) var kills = 0

    init(_ workload: String) throws {
        dir = try TestDirectory()
        schedule = CrashSchedule(workload)
    }

    /// A store path in the test's directory.
    func path(_ name: String) -> String { dir.path(name) }

    /// Opening an existing store without writing (a read-write open makes a write transaction,
    /// which waits for a writer holding the lock).
    static let readOnly: Store.Options = {
        var options = Store.Options()
        options.createIfMissing = false
        options.readOnly = true
        return options
    }()

    /// Opens (creating when absent) the store at `path`, as a user opening it after the crash
    /// would: recovery and the stale-reader check run here.
    func open(_ path: String, creating: Bool = false) throws -> Store {
        var options = Store.Options()
        options.createIfMissing = creating
        return try Store(path: path, options: options)
    }

    /// Starts `kvstore arguments…` in the background, standard output read line by line (or
    /// left for another command's input, with `readingOutput` false).
    func start(_ arguments: [String], readingOutput: Bool = true, input: FileHandle? = nil) throws -> BackgroundCommand {
        try BackgroundCommand(arguments, in: dir, readingOutput: readingOutput, input: input)
    }

    /// Waits until `process` acknowledged a commit of its own (`acknowledged`), waits a random
    /// delay of at most `limit` seconds, and kills it with SIGKILL. Expects that it was still at
    /// work when killed and that the kill is what ended it. - Returns: whether it was.
    @discardableResult
    func kill(_ process: BackgroundCommand, upTo limit: Double, acknowledged: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let delay = schedule.delay(upTo: limit)
        let started = waitUntil { acknowledged() || !process.isRunning }
        guard started, process.isRunning else {
            Issue.record("\(schedule): the process ended (or acknowledged nothing) before the kill: \(process.stderr)", sourceLocation: sourceLocation)
            _ = process.stop(signal: SIGKILL)
            return false
        }
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        let wasRunning = process.isRunning
        let status = process.stop(signal: SIGKILL)
        let killed = wasRunning && process.endedBySignal && status == SIGKILL
        #expect(killed, "\(schedule): the process was not killed mid-work (status \(status)): \(process.stderr)", sourceLocation: sourceLocation)
        if killed { kills += 1 }
        return killed
    }

    /// After a kill: the store opens, `verify` passes with the replay compared, and the journal
    /// audit finds journal and records in exact agreement.
    func checkStore(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let store = try open(path)
        let report = try store.verify()
        #expect(report.isHealthy && report.replayChecked, "\(schedule): \(path): \(report.summary) \(report.findings.prefix(5))", sourceLocation: sourceLocation)
        let findings = try JournalAudit.findings(in: path)
        #expect(findings.isEmpty, "\(schedule): \(path): \(findings)", sourceLocation: sourceLocation)
    }

    /// After a `torture --run RUN --batch BATCH` process ended: every commit it acknowledged is
    /// there, at most one more (committed, killed before it printed), and each commit whole.
    /// - Returns: the commits found.
    @discardableResult
    func checkTortureRun(_ run: String, of writer: BackgroundCommand, batch: Int = 1, in path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let acknowledged = writer.lines.filter { $0.hasPrefix("\(run) ") }.count
        #expect(writer.lines.last.map { $0 == "\(run) \(acknowledged)" } ?? true, "\(schedule): acknowledgements out of order: \(writer.lines.suffix(3))", sourceLocation: sourceLocation)
        let store = try open(path)
        let (found, items) = try store.read { txn in
            let n = try txn.value(forKey: "n", of: try RecordRef("counter/\(run)"))?.intValue ?? 0
            let items = try txn.records(ofKind: "item").filter { $0.ref.id.hasPrefix("\(run)-") }
            return (Int(n), items)
        }
        #expect(found == acknowledged || found == acknowledged + 1,
                "\(schedule): \(run) acknowledged \(acknowledged) commits, the store holds \(found)", sourceLocation: sourceLocation)
        if batch > 1 {
            var perCommit: [Int: Int] = [:]
            for item in items { perCommit[Int(item.values["commit"]?.intValue ?? 0), default: 0] += 1 }
            #expect(perCommit == Dictionary(uniqueKeysWithValues: (0..<found).map { ($0 + 1, batch) }),
                    "\(schedule): \(run): items per commit \(perCommit.sorted { $0.key < $1.key }.prefix(5)), \(found) whole commits of \(batch) expected", sourceLocation: sourceLocation)
        }
        return found
    }

    /// At the end of a workload: every kill hit a process mid-work; prints the count for
    /// `Tools/Scripts/reliability crash-long`'s summary (`crash: WORKLOAD: N kills survived`).
    func finish(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(kills == schedule.kills, "\(schedule)", sourceLocation: sourceLocation)
        print("crash: \(schedule.workload): \(kills) kills survived (KVSTORE_CRASH_SEED=\(schedule.seed))")
    }

    /// What `kvstore verify` says (run as a process, once per workload).
    func expectVerifies(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try dir.kvstore("verify", path)
        #expect(result.status == 0 && result.stdout.hasPrefix("healthy"), "\(schedule): \(result)", sourceLocation: sourceLocation)
    }

    /// The applied checkpoint of the replica at `path` (0 before it has one).
    func appliedThrough(_ path: String) -> UInt64 {
        guard FileManager.default.fileExists(atPath: path + "/data.mdb"), let store = try? Store(path: path, options: Self.readOnly) else { return 0 }
        return (try? store.read { try $0.replicationSources().first?.appliedSequence }) ?? 0
    }

    /// After a replicator or `journal apply` was killed: the replica's checkpoint is at least
    /// `observed` (what it had applied when last looked at before the kill), it ends a whole
    /// source commit, and the replica's records are the source's as of that checkpoint — the
    /// source's journal replayed through it — so nothing was lost or applied twice.
    /// - Returns: the checkpoint.
    @discardableResult
    func checkReplica(_ replica: String, of source: String, observed: UInt64, sourceLocation: SourceLocation = #_sourceLocation) throws -> UInt64 {
        let checkpoint = appliedThrough(replica)
        #expect(checkpoint >= observed, "\(schedule): the replica applied through \(observed) before the kill, \(checkpoint) after", sourceLocation: sourceLocation)
        let sourceStore = try Store(path: source, options: Self.readOnly)  // no write: its writer may be paused
        let around = try sourceStore.journalEntries(from: max(checkpoint, 1), limit: 2)
        if checkpoint > 0, around.count == 2 {
            #expect(around[0].commitID != around[1].commitID, "\(schedule): the checkpoint \(checkpoint) cuts source commit \(around[0].commitID)", sourceLocation: sourceLocation)
        }
        let rebuiltPath = dir.path("as-of-\(checkpoint)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: rebuiltPath) }
        var differences: [RecordDifference] = []
        do {
            var options = Store.Options()
            options.durability = .noSync
            let rebuilt = try Store(path: rebuiltPath, options: options)
            if checkpoint > 0 { try sourceStore.replayJournal(into: rebuilt, until: .sequence(checkpoint)) }
            try open(replica).forEachDifference(from: rebuilt) { differences.append($0); return differences.count < 5 }
        }
        #expect(differences.isEmpty, "\(schedule): the replica at checkpoint \(checkpoint) is not the source as of then: \(differences)", sourceLocation: sourceLocation)
        return checkpoint
    }
}
