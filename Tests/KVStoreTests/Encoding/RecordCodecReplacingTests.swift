import Foundation
import Testing
@testable import KVStore

@Suite struct RecordCodecReplacingTests {
    private static let keys = ["", "a", "b", "name", "née", "zz", "Z", "k1", "k10", "k2", "\u{1F600}"]

    private static func randomValue(_ random: inout CodecRandom) -> Value {
        switch random.below(6) {
        case 0: .int(Int64(bitPattern: random.next()) >> random.below(64))
        case 1: .string(String(repeating: "x", count: random.below(40)))
        case 2: .double(Double(random.below(1000)) / 7)
        case 3: .bool(random.below(2) == 0)
        case 4: .array((0..<random.below(4)).map { .int(Int64($0)) })
        default: .dictionary(["inner": .string("v\(random.below(9))")])
        }
    }

    /// Setting or removing one key by patching gives exactly the bytes a full re-encode gives,
    /// and reports the key's previous value.
    @Test func patchingMatchesAFullReencode() throws {
        var random = CodecRandom(seed: 42)
        for _ in 0..<2000 {
            var record: [String: Value] = [:]
            for key in Self.keys where random.below(2) == 0 { record[key] = Self.randomValue(&random) }
            let key = Self.keys[random.below(Self.keys.count)]
            let value: Value? = random.below(3) == 0 ? nil : Self.randomValue(&random)
            let encoded = RecordCodec.encode(record)
            let (patched, old) = try encoded.withUnsafeBytes { try RecordCodec.replacing(key, with: value, in: $0) }
            #expect(old == record[key])
            var expected = record
            expected[key] = value
            #expect(patched == RecordCodec.encode(expected), "key \(key) in \(record)")
        }
    }

    @Test func patchingACorruptRecordThrows() {
        var bytes = RecordCodec.encode(["a": 1, "b": 2, "c": 3])
        bytes[3] = 0xFF  // an offset in the directory
        #expect(throws: ValueDecodingError.self) {
            _ = try bytes.withUnsafeBytes { try RecordCodec.replacing("b", with: 5, in: $0) }
        }
    }

    @Test func theKeyedWriterMatchesTheEncoder() {
        var writer = KeyedWriter(count: 2, into: [ValueCodec.version])
        writer.key("a"); ValueCodec.encode(1, into: &writer.bytes)
        writer.key("b"); ValueCodec.encode("x", into: &writer.bytes)
        #expect(writer.finish() == RecordCodec.encode(["a": 1, "b": "x"]))
    }
}
