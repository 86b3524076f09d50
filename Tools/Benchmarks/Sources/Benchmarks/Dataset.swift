import KVStore

/// The benchmark's records: kind `bench`, ids `r000000`…, each a 16-key dictionary of about 320
/// bytes encoded (ints, short strings, a double, a bool), generated deterministically from its index.
///
/// Indexes `0 ..< records` are the base records loaded before the scenarios; indexes from `records`
/// on are the insert pool (new ids, sorting after every base id).
enum Dataset {
    static let kind = "bench"
    /// The key every read scenario reads (a 28-character string).
    static let readKey = "k7"
    /// The key every set scenario sets (an int; base values are below 1,000).
    static let setKey = "k3"
    /// The int key the aggregate scenario sums (no scenario changes it; values below 100,000).
    static let sumKey = "k2"

    static func id(_ index: Int) -> String {
        let digits = String(index)
        return "r" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    static func ref(_ index: Int) -> RecordRef {
        // Ids are generated valid; a failure here is a bug in the harness.
        try! RecordRef(kind: kind, id: id(index))
    }

    /// The record key both engines store under: kind UTF-8, 0x00, id UTF-8.
    static func key(_ index: Int) -> [UInt8] {
        Array(kind.utf8) + [0] + Array(id(index).utf8)
    }

    static func values(_ index: Int) -> [String: Value] {
        var random = SplitMix64(seed: UInt64(index) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        func word(_ length: Int) -> String {
            String(decoding: (0 ..< length).map { _ in UInt8(97 + random.next() % 26) }, as: UTF8.self)
        }
        func int(below bound: UInt64) -> Value { .int(Int64(random.next() % bound)) }
        return [
            "k0": .int(Int64(index)),
            "k1": .string(word(24)),
            "k2": int(below: 100_000),
            "k3": .int(Int64(index % 1_000)),
            "k4": .string(word(20)),
            "k5": .double(Double(random.next() % 10_000_000) / 100),
            "k6": int(below: 1_000_000_000),
            "k7": .string(word(28)),
            "k8": int(below: 256),
            "k9": .bool(index % 2 == 0),
            "k10": .string(word(24)),
            "k11": int(below: 1_000_000),
            "k12": .string(word(22)),
            "k13": int(below: 10_000),
            "k14": .string(word(22)),
            "k15": .int(1_700_000_000 + Int64(index)),
        ]
    }
}

/// A small, fast, deterministic generator (SplitMix64), so every run sees the same data and orders.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
