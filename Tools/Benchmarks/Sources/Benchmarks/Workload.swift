/// The inputs of one round, made before timing starts and handed to every engine alike, so both
/// read the same records in the same order, set the same records to the same values, and insert
/// the same new records.
struct Workload {
    /// Operations per transaction in the batched scenarios.
    let batch: Int
    /// Base-record indexes to read, in order (a random permutation).
    let readOrder: [Int]
    /// Base-record indexes to set, in order (random, with repeats).
    let setTargets: [Int]
    /// The value each set stores: unique over the run, so every set changes its record.
    let setValues: [Int64]
    /// Insert-pool positions (0-based into the pool) to insert this round.
    let insertRange: Range<Int>
    /// The positions the companion insert scenario (11b) inserts this round: the pool's second half.
    let companionInsertRange: Range<Int>
    /// Commits per round in the small-commit scenarios (the first `commits` set targets and values).
    let commits: Int
    /// Writer threads in the concurrent-commit scenarios.
    let writers: Int

    /// Round `round` of scenario `scenario`: every (scenario, round) sets values of its own, so
    /// that every set changes its record.
    static func make(round: Int, scenario: Int, config: Configuration) -> Workload {
        var random = SplitMix64(seed: 0xBE7C_4000 &+ UInt64(round) &+ UInt64(scenario) << 16)
        let reads = Array((0 ..< config.records).shuffled(using: &random).prefix(config.readsPerRound))
        let sets = (0 ..< config.setsPerRound).map { _ in Int(random.next() % UInt64(config.records)) }
        let firstValue = 1_000_000 + Int64((scenario * config.rounds + round) * config.setsPerRound)
        let start = round * config.insertsPerRound
        return Workload(
            batch: config.batch,
            readOrder: reads,
            setTargets: sets,
            setValues: (0 ..< Int64(config.setsPerRound)).map { firstValue + $0 },
            insertRange: start ..< start + config.insertsPerRound,
            companionInsertRange: config.rounds * config.insertsPerRound + start ..< config.rounds * config.insertsPerRound + start + config.insertsPerRound,
            commits: min(config.setsPerRound, config.commitsPerRound),
            writers: config.writers)
    }

    /// `range` cut into consecutive transaction-sized pieces.
    func batches(of range: Range<Int>) -> [Range<Int>] {
        stride(from: range.lowerBound, to: range.upperBound, by: batch).map {
            $0 ..< min($0 + batch, range.upperBound)
        }
    }
}
