import Foundation

/// How many kills a crash test makes and when: `KVSTORE_CRASH_KILLS` (default 3; the long mode,
/// `Tools/Scripts/reliability crash-long`, sets 100 or more) kills per workload, at delays drawn from a
/// generator seeded by `KVSTORE_CRASH_SEED` (default: a random seed). ``description`` names the
/// seed, so a failure message tells how to make the same delays again.
///
/// ```swift
/// var schedule = CrashSchedule("single sets")
/// for kill in 1...schedule.kills { Thread.sleep(forTimeInterval: schedule.delay(upTo: 0.02)) … }
/// ```
struct CrashSchedule: CustomStringConvertible {
    let workload: String
    let kills: Int
    let seed: UInt64
    private var state: UInt64
    /// The delays drawn so far, in seconds.
    private(set) var delays: [Double] = []

    init(_ workload: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.workload = workload
        kills = environment["KVSTORE_CRASH_KILLS"].flatMap { Int($0) }.map { max($0, 1) } ?? 3
        seed = environment["KVSTORE_CRASH_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        state = seed
    }

    /// Whether this is the long mode (more kills than the default).
    var isLong: Bool { kills > 3 }

    /// A delay in `0...limit` seconds, drawn from the seeded generator (SplitMix64).
    mutating func delay(upTo limit: Double) -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let delay = Double(z >> 11) / Double(1 << 53) * limit
        delays.append(delay)
        return delay
    }

    var description: String {
        let last = delays.last.map { String(format: ", last delay %.1f ms", $0 * 1000) } ?? ""
        return "\(workload): kill \(delays.count) of \(kills), KVSTORE_CRASH_SEED=\(seed)\(last)"
    }
}
