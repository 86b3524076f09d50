import Foundation

/// The results as a table (default) or as JSON (`--json`).
struct Report: Encodable {
    let configuration: ConfigurationSummary
    let data: DataFacts
    let scenarios: [ScenarioSummary]
    /// The 1-minute load average before and after the run: the machine's other work skews results.
    let loadAverage: [Double]
    /// A checksum of everything the scenarios read, so that no read can be optimised away.
    let checksum: Int

    struct ConfigurationSummary: Encodable {
        let rounds: Int
        let batch: Int
        let quick: Bool
        let durability: String
    }

    struct ScenarioSummary: Encodable {
        let name: String
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

    init(config: Configuration, data: DataFacts, results: [ScenarioResult], checksum: Int, loadAverage: [Double]) {
        self.loadAverage = loadAverage
        configuration = ConfigurationSummary(rounds: config.rounds, batch: config.batch, quick: config.quick, durability: "full")
        self.data = data
        self.checksum = checksum
        scenarios = results.map { result in
            ScenarioSummary(
                name: result.name,
                operationsPerRound: result.operationsPerRound,
                engines: result.engines.map { EngineSummary(engine: $0.engine, medianOpsPerSecond: $0.median.rounded(), opsPerSecond: $0.opsPerSecond.map { $0.rounded() }) },
                ratios: Dictionary(uniqueKeysWithValues: result.ratios.map { ($0.baseline, ($0.ratio * 1000).rounded() / 1000) }))
        }
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    func table(results: [ScenarioResult]) -> String {
        guard let first = results.first, let subject = first.engines.first?.engine else { return "nothing measured\n" }
        var header = ["scenario"] + first.engines.map { "\($0.engine) ops/s" }
        header += first.engines.dropFirst().map { "\(subject)/\($0.engine)" }
        var rows = [header]
        for result in results {
            rows.append([result.name] + result.engines.map { Self.format($0.median) } + result.ratios.map { Self.ratio($0.ratio) })
        }
        let widths = header.indices.map { column in rows.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }  // rows without a baseline are shorter
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        var text = """
            kvstore benchmarks: \(data.records) records of ~\(Int(data.averageRecordBytes.rounded())) bytes, \
            journal entries of ~\(Int(data.averageInsertEntryBytes.rounded())) bytes (insert) and \(data.setEntryBytes) bytes (set), \
            \(configuration.rounds) rounds, median ops/s, full durability\(configuration.quick ? ", QUICK (not a measurement)" : ""); \
            load average \(loadAverage.map { String(format: "%.1f", $0) }.joined(separator: " → "))

            """
        text += line(rows[0]) + "\n"
        text += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        for row in rows.dropFirst() { text += line(row) + "\n" }
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

    /// The 1-minute load average (Linux), or nil.
    static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }
}
