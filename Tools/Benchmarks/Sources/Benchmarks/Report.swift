import Foundation

/// The results as a table (default) or as JSON (`--json`).
struct Report: Encodable {
    let configuration: ConfigurationSummary
    /// The prepared data (nil when only figures ran).
    let data: DataFacts?
    let scenarios: [ScenarioSummary]
    /// Figures measured once per run against a target (follow latency, replication, dump).
    let measurements: [Figure]
    /// The 1-minute load average before and after the run: the machine's other work skews results.
    let loadAverage: [Double]
    /// A checksum of everything the scenarios read, so that no read can be optimised away.
    let checksum: Int
    /// The plans of the feed-reader queries (scenarios 20–26) as each engine explains them.
    let plans: [String]

    struct ConfigurationSummary: Encodable {
        let rounds: Int
        let batch: Int
        let quick: Bool
    }

    struct ScenarioSummary: Encodable {
        let number: Int
        /// "11", or "11b" for a companion row (same number).
        let label: String
        let name: String
        /// kvstore's / SQLite's durability ("" for reads).
        let durability: String
        let operationsPerRound: Int
        let engines: [EngineSummary]
        /// Subject median / baseline median, keyed by baseline engine.
        let ratios: [String: Double]
    }

    struct EngineSummary: Encodable {
        let engine: String
        let medianOpsPerSecond: Double
        let opsPerSecond: [Double]
    }

    init(
        config: Configuration, data: DataFacts?, results: [ScenarioResult], measurements: [Figure], checksum: Int, loadAverage: [Double],
        plans: [String] = []
    ) {
        self.loadAverage = loadAverage
        self.plans = plans
        configuration = ConfigurationSummary(rounds: config.rounds, batch: config.batch, quick: config.quick)
        self.data = data
        self.checksum = checksum
        self.measurements = measurements
        self.results = results
        scenarios = results.map { result in
            ScenarioSummary(
                number: result.number,
                label: result.label,
                name: result.name,
                durability: result.durability,
                operationsPerRound: result.operationsPerRound,
                engines: result.engines.map { EngineSummary(engine: $0.engine, medianOpsPerSecond: Self.rate($0.median), opsPerSecond: $0.opsPerSecond.map(Self.rate)) },
                ratios: Dictionary(uniqueKeysWithValues: result.ratios.map { ($0.baseline, ($0.ratio * 1000).rounded() / 1000) }))
        }
    }

    private let results: [ScenarioResult]
    private enum CodingKeys: CodingKey { case configuration, data, scenarios, measurements, loadAverage, checksum, plans }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The engines' columns: every engine any scenario ran, the subject (kvstore) first.
    private var engineNames: [String] {
        var names: [String] = []
        for result in results { for engine in result.engines where !names.contains(engine.engine) { names.append(engine.engine) } }
        return names
    }

    func table() -> String {
        let engines = engineNames
        let subject = engines.first ?? EngineName.kvstore
        let baselines = engines.dropFirst()
        let header = ["#", "scenario", "durability (kvstore / SQLite)"] + engines.map { "\($0) ops/s" } + baselines.map { "\(subject)/\($0)" }
        var rows = [header]
        for result in results {
            let medians = engines.map { name in result.engines.first { $0.engine == name }.map { Self.format($0.median) } ?? "" }
            let ratios = baselines.map { name in result.ratios.first { $0.baseline == name }.map { Self.ratio($0.ratio) } ?? "" }
            rows.append([result.label, result.name, result.durability] + medians + ratios)
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 1 || column == 2 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        let load = "load average " + loadAverage.map { String(format: "%.1f", $0) }.joined(separator: " → ")
        let quick = configuration.quick ? ", QUICK (not a measurement)" : ""
        var text = results.isEmpty
            ? "kvstore benchmarks: figures only\(quick); \(load)\n"
            : "kvstore benchmarks: \(configuration.rounds) rounds, median ops/s\(quick); \(load)\n"
        if let data {
            text = """
                kvstore benchmarks: \(data.records) records of ~\(Int(data.averageRecordBytes.rounded())) bytes, \
                journal entries of ~\(Int(data.averageInsertEntryBytes.rounded())) bytes (insert) and \(data.setEntryBytes) bytes (set), \
                \(configuration.rounds) rounds, median ops/s\(quick); \(load)

                """
        }
        if !results.isEmpty {
            text += line(rows[0]) + "\n"
            text += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
            for row in rows.dropFirst() { text += line(row) + "\n" }
        }
        if !measurements.isEmpty {
            text += "\nmeasured once per run (kvstore only):\n"
            for m in measurements {
                let verdict = m.met.map { $0 ? "met" : "NOT met" } ?? "-"
                text += "\(m.number). \(m.name)\(m.durability.isEmpty ? "" : " [\(m.durability)]"): \(m.result) (target \(m.target): \(verdict))\n"
            }
        }
        if !plans.isEmpty {
            text += "\nquery plans of the feed-reader scenarios:\n" + plans.map { "  \($0)\n" }.joined()
        }
        return text
    }

    /// `1234567.8` as `1,234,568`.
    static func format(_ value: Double) -> String {
        let digits = String(Int(value.rounded()))
        var result = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return result
    }

    static func ratio(_ value: Double) -> String { String(format: "%.2f", value) }

    /// A rate as the JSON gives it: whole operations per second, or two decimals below 1,000/s
    /// (the slow feed queries run a few times per second).
    static func rate(_ value: Double) -> Double { value >= 1_000 ? value.rounded() : (value * 100).rounded() / 100 }

    /// The 1-minute load average (Linux), or nil.
    static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }
}
