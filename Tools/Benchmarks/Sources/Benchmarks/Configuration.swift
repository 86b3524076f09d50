import Foundation

/// What one run measures: data sizes, rounds and output form, from the command line.
struct Configuration {
    /// Records of kind `bench` loaded into each engine before any scenario runs.
    var records = 100_000
    /// Rounds per scenario; engines alternate within each round and the median round is reported.
    var rounds = 5
    /// Reads per round in the two read scenarios (a random permutation of the records).
    var readsPerRound = 100_000
    /// Operations per transaction in the batched scenarios.
    var batch = 1_000
    /// Write transactions per round in the batched-set scenario.
    var setTransactionsPerRound = 50
    /// Write transactions per round in the insert scenario.
    var insertTransactionsPerRound = 20
    /// Commits per round in the small-commit scenarios (one set each), and their writer threads.
    var commitsPerRound = 400
    var writers = 8
    /// Commits the cross-process follow-latency measurement makes (one every 3 ms).
    var followCommits = 1_000
    /// Records of the store built for the replication and dump measurements.
    var bigRecords = 1_000_000
    /// Items of the feed-reader stores (scenarios 20–26): the first size gets every row, the
    /// others the growth rows of 20–23.
    var feedSizes = [100_000, 10_000, 1_000_000]
    /// The release `kvstore` binary the dump measurement runs (found beside the repository's
    /// `.build/release` when not given).
    var kvstoreBinary: String?
    /// The initial LMDB map size of both engines: large enough that no map growth happens mid-run.
    var mapSize = 1 << 30
    /// Print JSON instead of the table.
    var json = false
    /// The quick variant (2 rounds, 10× less data, 50× fewer records to replicate and dump).
    var quick = false
    /// Run only these scenarios (1-based numbers) / only this engine: for profiling one side.
    var scenarioFilter: Set<Int>?
    var engineFilter: String?
    /// Where the per-engine temporary directories go (the file system decides what a sync costs).
    var directory = FileManager.default.temporaryDirectory.path

    static let usage = """
        usage: Benchmarks [--quick] [--json] [--rounds N] [--dir PATH] [--scenario N]... [--engine NAME] [--kvstore PATH] [--feed-sizes N,...]
          --quick     2 rounds and 10x less data (a smoke run, not a measurement)
          --json      print the results as JSON instead of a table
          --rounds N  rounds per scenario (default 5, or 2 with --quick)
          --dir PATH  where to create the temporary stores (default: the system temp directory)
          --scenario N  run only scenario N (1-based; repeatable; 11 runs its companion 11b too), e.g. to profile it
          --engine NAME run only engine NAME ("kvstore", "raw LMDB" or "GRDB"), e.g. to profile it
          --kvstore PATH the release kvstore binary for the dump measurement
                      (default: .build/release/kvstore in the repository)
          --feed-sizes N,...  items of the feed-reader stores of scenarios 20-26: all rows at the
                      first size, the growth rows of 20-23 at the others (default 100000,10000,1000000)
        """

    /// Parses the arguments (without the program name).
    static func parse(_ arguments: [String]) throws -> Configuration {
        var config = Configuration()
        var rounds: Int?
        var feedSizes: [Int]?
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--quick": config.quick = true
            case "--json": config.json = true
            case "--rounds":
                guard let text = iterator.next(), let n = Int(text), n > 0 else { throw UsageError("--rounds needs a positive number") }
                rounds = n
            case "--dir":
                guard let path = iterator.next() else { throw UsageError("--dir needs a path") }
                config.directory = path
            case "--scenario":
                guard let text = iterator.next(), let n = Int(text), n > 0 else { throw UsageError("--scenario needs a number") }
                config.scenarioFilter = (config.scenarioFilter ?? []).union([n])
            case "--engine":
                guard let name = iterator.next() else { throw UsageError("--engine needs a name") }
                config.engineFilter = name
            case "--kvstore":
                guard let path = iterator.next() else { throw UsageError("--kvstore needs a path") }
                config.kvstoreBinary = path
            case "--feed-sizes":
                let sizes = iterator.next()?.split(separator: ",").map { Int($0) } ?? []
                guard !sizes.isEmpty, sizes.allSatisfy({ ($0 ?? 0) > 0 }) else { throw UsageError("--feed-sizes needs positive numbers separated by commas") }
                feedSizes = sizes.compactMap { $0 }
            case "-h", "--help": throw UsageError(nil)
            default: throw UsageError("unknown argument '\(argument)'")
            }
        }
        if config.quick {
            config.records /= 10
            config.readsPerRound /= 10
            config.setTransactionsPerRound = 2
            config.insertTransactionsPerRound = 1
            config.rounds = 2
            config.commitsPerRound = 80
            config.followCommits = 200
            config.bigRecords = 20_000
            config.feedSizes = [10_000, 1_000, 100_000]
        }
        if let rounds { config.rounds = rounds }
        if let feedSizes { config.feedSizes = feedSizes }
        return config
    }

    var setsPerRound: Int { setTransactionsPerRound * batch }
    var insertsPerRound: Int { insertTransactionsPerRound * batch }
    /// New records inserted over all rounds by each engine (the insert pool): the first half by
    /// scenario 11, the second by its companion 11b.
    var insertPoolSize: Int { 2 * rounds * insertsPerRound }
}

struct UsageError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}
