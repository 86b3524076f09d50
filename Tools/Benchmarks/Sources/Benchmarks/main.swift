import Foundation

// kvstore against raw LMDB on the same bytes and GRDB on the same records: see README.md. Progress goes to stderr, results to
// stdout (a table, or JSON with --json).

func log(_ message: String) {
    FileHandle.standardError.write(Data(("[bench] " + message + "\n").utf8))
}

func main() throws {
    switch CommandLine.arguments.dropFirst().first {
    case "follow-latency": return try FollowLatency.run(Array(CommandLine.arguments.dropFirst(2)))
    case "follow-latency-follower": return try FollowLatency.follow(Array(CommandLine.arguments.dropFirst(2)))
    case "replication-lag": return try ReplicationLag.run(Array(CommandLine.arguments.dropFirst(2)))
    case "replication-lag-follower": return try ReplicationLag.follow(Array(CommandLine.arguments.dropFirst(2)))
    case "tcp-lag": return try TCPReplicationLag.run(Array(CommandLine.arguments.dropFirst(2)))
    case "live-query": return try LiveQueryUpdate.run(Array(CommandLine.arguments.dropFirst(2)))
    case "kind-change-latency": return try KindChangeLatency.run(Array(CommandLine.arguments.dropFirst(2)))
    case "kind-change-latency-writer": return try KindChangeLatency.write(Array(CommandLine.arguments.dropFirst(2)))
    default: break
    }
    let config: Configuration
    do {
        config = try Configuration.parse(Array(CommandLine.arguments.dropFirst()))
    } catch let error as UsageError {
        if let message = error.message { log(message) }
        print(Configuration.usage)
        exit(error.message == nil ? 0 : 2)
    }
    let root = (config.directory as NSString).appendingPathComponent("kvstore-bench-\(getpid())-\(UInt32.random(in: 0 ... .max))")
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }

    let report = try measure(config, root: root)
    print(config.json ? try report.json() : report.table())
}

/// Prepares the engines, runs the scenarios, and lets the engines (and their open files) go before
/// the directory is removed.
func measure(_ config: Configuration, root: String) throws -> Report {
    let start = ContinuousClock.now
    let loadBefore = Report.loadAverage()
    var results: [ScenarioResult] = []
    var checksum = 0
    var facts: DataFacts?
    // Only figures selected (e.g. `--scenario 19`): the engines' data is not needed.
    if config.scenarioFilter?.contains(where: { $0 <= Scenario.numberedCount }) ?? true {
        let (engines, data) = try Preparation.prepare(config, root: root, log: log)
        log("prepared in \(ContinuousClock.now - start); running \(config.rounds) rounds per scenario")
        let groupCommit = try GroupCommitBench(near: engines.kvstore, config: config)
        let indexedInserts = try IndexedInsertBench.scenarios(near: engines.kvstore, config: config)
        let scenarios = Scenario.all(engines, groupCommit: groupCommit, indexedInserts: indexedInserts)
            + (try ObservationBench.scenarios(near: engines.kvstore, config: config))
            + QueryBench.scenarios(engines)
        let numbered = scenarios.filter { !$0.isCompanion }.count
        precondition(numbered == Scenario.numberedCount, "Scenario.numberedCount is \(Scenario.numberedCount), not \(numbered)")
        (results, checksum) = try Runner(config: config, log: log).run(scenarios)
        facts = data
    }
    let measurements = try Figures(config: config, root: root, firstNumber: Scenario.numberedCount + 1).run()
    var plans: [String] = []
    if FeedQueryBench.isSelected(config) {
        let feeds = try FeedQueryBench(config: config, root: root, log: log)
        let (feedResults, feedChecksum) = try Runner(config: config, log: log).run(feeds.scenarios(), firstNumber: FeedQueryBench.firstNumber)
        results += feedResults
        checksum = checksum &* 31 &+ feedChecksum
        plans = feeds.plans
    }
    let syncFigures = try SyncFigures(config: config, root: root, firstNumber: FeedQueryBench.firstNumber + FeedQueryBench.numberedCount).run()
    log("done in \(ContinuousClock.now - start)")
    let load = [loadBefore, Report.loadAverage()].compactMap { $0 }
    return Report(config: config, data: facts, results: results, measurements: measurements + syncFigures, checksum: checksum, loadAverage: load,
                  plans: plans)
}

do {
    try main()
} catch {
    log("error: \(error)")
    exit(1)
}
