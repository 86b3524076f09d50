/// Runs every scenario for several rounds, alternating which engine goes first each round, and
/// keeps each engine's throughput per round.
struct Runner {
    let config: Configuration
    let log: (String) -> Void

    /// Runs `scenarios`, the first numbered `firstNumber`.
    func run(_ scenarios: [Scenario], firstNumber: Int = 1) throws -> (results: [ScenarioResult], checksum: Int) {
        let clock = ContinuousClock()
        var checksum = 0
        var results: [ScenarioResult] = []
        var number = firstNumber - 1, companions = 0
        for scenario in scenarios {
            companions = scenario.isCompanion ? companions + 1 : 0
            if !scenario.isCompanion { number += 1 }
            guard config.scenarioFilter?.contains(number) ?? true else { continue }
            let engines = scenario.engines.filter { config.engineFilter == nil || $0.engine == config.engineFilter }
            var rates: [String: [Double]] = [:]
            var operations = 0
            try scenario.setUp()
            for round in 0 ..< config.rounds {
                let workload = Workload.make(round: round, scenario: number, config: config)
                var checked: [(engine: String, sum: Int)] = []
                operations = scenario.operations(workload)
                let shift = round % max(1, engines.count)
                let order = engines[shift...] + engines[..<shift]
                for engine in order {
                    var sum = 0
                    let elapsed = try clock.measure { sum = try engine.run(workload) }
                    checksum = checksum &* 31 &+ sum
                    if engine.checked { checked.append((engine.engine, sum)) }
                    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                    rates[engine.engine, default: []].append(Double(operations) / seconds)
                }
                if let first = checked.first, checked.contains(where: { $0.sum != first.sum }) {
                    throw ChecksumMismatch(scenario: scenario.name, round: round, sums: checked)
                }
            }
            let result = ScenarioResult(
                number: number,
                label: scenario.isCompanion ? "\(number)\(Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(companions))))" : "\(number)",
                name: scenario.name,
                durability: scenario.durability,
                operationsPerRound: operations,
                engines: engines.map { EngineResult(engine: $0.engine, opsPerSecond: rates[$0.engine] ?? []) })
            log(result.summary)
            results.append(result)
        }
        return (results, checksum)
    }
}

struct EngineResult: Codable {
    let engine: String
    /// Operations per second, one per round, in round order.
    let opsPerSecond: [Double]
    var median: Double {
        let sorted = opsPerSecond.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// Engines that should have read or written the same values returned different checksums.
struct ChecksumMismatch: Error, CustomStringConvertible {
    let scenario: String
    let round: Int
    let sums: [(engine: String, sum: Int)]
    var description: String {
        "checksums differ in '\(scenario)', round \(round + 1): " + sums.map { "\($0.engine) \($0.sum)" }.joined(separator: ", ")
    }
}

struct ScenarioResult {
    let number: Int
    /// The number as the table shows it: "11", or "11b", "11c" for companion rows.
    let label: String
    let name: String
    /// The engines' durability ("" for reads).
    let durability: String
    let operationsPerRound: Int
    /// The subject (kvstore) first, then each baseline.
    let engines: [EngineResult]

    /// The subject's median over each baseline's median.
    var ratios: [(baseline: String, ratio: Double)] {
        guard let subject = engines.first else { return [] }
        return engines.dropFirst().map { ($0.engine, $0.median > 0 ? subject.median / $0.median : 0) }
    }

    var summary: String {
        let medians = engines.map { "\($0.engine) \(Report.format($0.median))/s" }.joined(separator: ", ")
        let ratio = ratios.map { Report.ratio($0.ratio) }.joined(separator: ", ")
        return "\(name)\(durability.isEmpty ? "" : " [\(durability)]"): \(medians) (ratio \(ratio))"
    }
}
