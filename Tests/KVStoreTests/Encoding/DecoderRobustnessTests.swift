import Foundation
import Testing
@testable import KVStore

/// SplitMix64: a small, seeded, deterministic generator for reproducible random tests.
struct CodecRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func byte() -> UInt8 {
        UInt8(truncatingIfNeeded: next())
    }

    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}

/// Decoders must either succeed or throw on any input; a trap would crash the test process.
@Suite struct DecoderRobustnessTests {
    static let values: [Value] = [
        .array(ValueSamples.scalars),
        ["name": "Ada", "born": 1815, "tags": ["math", "poetry"], "address": ["city": "London", "zip": .null]],
        ValueSamples.nested(6, around: ["k": [1.5, .bytes(Data([1, 2, 3])), .reference(try! RecordRef("a/b/c"))]]),
        ["é": 1, "e\u{301}x": .date(Date(timeIntervalSince1970: 0.5)), "": [[:], []]],
    ]

    static let records: [[String: Value]] = values.compactMap(\.dictionaryValue) + [
        [:],
        Dictionary(uniqueKeysWithValues: (0 ..< 40).map { ("k\($0)", Value.int(Int64($0) << 40)) }),
    ]

    /// Runs every decoder on `bytes`, ignoring errors.
    static func decodeEverything(_ bytes: [UInt8], keys: [String] = ["", "a", "name", "k1", "zz"]) {
        _ = try? ValueCodec.decode(bytes)
        bytes.withUnsafeBytes { buffer in
            _ = try? RecordCodec.decode(buffer)
            _ = try? RecordCodec.keys(in: buffer)
            for key in keys { _ = try? RecordCodec.value(forKey: key, in: buffer) }
        }
    }

    @Test func everyTruncationOfAValueThrows() {
        for value in Self.values {
            let bytes = ValueCodec.encode(value)
            for length in 0 ..< bytes.count {
                #expect(throws: ValueDecodingError.self) { try ValueCodec.decode(Array(bytes[..<length])) }
            }
        }
    }

    @Test func everyTruncationOfARecordThrows() {
        for record in Self.records {
            let bytes = RecordCodec.encode(record)
            let keys = Array(record.keys)
            for length in 0 ..< bytes.count {
                let prefix = Array(bytes[..<length])
                #expect(throws: ValueDecodingError.self) { try RecordCodec.decode(prefix) }
                Self.decodeEverything(prefix, keys: keys)
            }
        }
    }

    @Test func randomBytesNeverTrap() {
        var random = CodecRandom(seed: 0x5EED)
        var decoded = 0
        for _ in 0 ..< 6000 {
            let length = random.below(48)
            var bytes = (0 ..< length).map { _ in random.byte() }
            // Mostly a valid version byte and valid tags, so the decoders get past the first checks.
            if !bytes.isEmpty, random.below(8) != 0 { bytes[0] = ValueCodec.version }
            for index in bytes.indices.dropFirst() where random.below(2) == 0 {
                bytes[index] = UInt8(random.below(12))
            }
            if (try? ValueCodec.decode(bytes)) != nil { decoded += 1 }
            Self.decodeEverything(bytes)
        }
        #expect(decoded > 0)  // the generator does reach valid encodings
    }

    @Test func singleByteMutationsNeverTrap() throws {
        var random = CodecRandom(seed: 99)
        var encodings = Self.values.map { ValueCodec.encode($0) }
        encodings += Self.records.map { RecordCodec.encode($0) }
        for bytes in encodings {
            for index in bytes.indices {
                for replacement in [random.byte(), random.byte(), bytes[index] ^ 0x80, 0xFF, 0x00] {
                    var mutated = bytes
                    mutated[index] = replacement
                    Self.decodeEverything(mutated)
                }
            }
        }
    }

    @Test func mutatedOffsetsInADirectoryNeverTrap() {
        var random = CodecRandom(seed: 2024)
        let record = Dictionary(uniqueKeysWithValues: (0 ..< 12).map { ("key\($0)", Value.string("v\($0)")) })
        let bytes = RecordCodec.encode(record)
        let keys = Array(record.keys) + ["a", "zzz"]
        for _ in 0 ..< 2000 {
            var mutated = bytes
            let slot = 2 + 4 * random.below(13)  // one of the 13 UInt32 offsets after the count
            let offset = UInt32(truncatingIfNeeded: random.below(2) == 0 ? random.next() : UInt64(random.below(200)))
            withUnsafeBytes(of: offset.littleEndian) { mutated.replaceSubrange(slot ..< slot + 4, with: $0) }
            Self.decodeEverything(mutated, keys: keys)
        }
    }

    @Test func hostileLengthsAndNestingThrowWithoutAllocatingOrOverflowing() {
        let hostile: [[UInt8]] = [
            [1, 0x05, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],
            [1, 0x06, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
            [1, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x00],
            [1, 0x09, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00, 0x00, 0x00, 0x00],
            [1] + Array(repeating: 0x80, count: 100),
            [1] + Array(repeating: 0x08, count: 1) + Array(repeating: 0x01, count: 1)
                + Array([UInt8]([0x08, 0x01]).repeated(100_000)) + [0x00],
            [1] + Array([UInt8]([0x09, 0x01, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0x6B]).repeated(50_000)),
        ]
        for bytes in hostile {
            #expect(throws: ValueDecodingError.self) { try ValueCodec.decode(bytes) }
            Self.decodeEverything(bytes)
        }
    }

    @Test func mutatedTypedJSONNeverTraps() {
        var random = CodecRandom(seed: 7)
        let texts = (Self.values + Self.records.map(Value.dictionary)).flatMap {
            [TypedJSON.utf8(from: $0), TypedJSON.utf8(from: $0, pretty: true)]
        } + [Array(#"{"$dict":{"$dict":{"$date":"2016-07-15T00:00:00.5Z"}},"s":"\ud83d\ude00\n"}"#.utf8)]
        let alphabet = Array(#"{}[]:,"\$-+.eE0123456789 tfnu"#.utf8) + [0x80, 0xC3, 0xED, 0xF4, 0xFF, 0x00]
        var parsed = 0
        for text in texts {
            for _ in 0 ..< 250 {
                var mutated = text
                switch random.below(3) {
                case 0: mutated[random.below(mutated.count)] = alphabet[random.below(alphabet.count)]
                case 1: mutated.insert(alphabet[random.below(alphabet.count)], at: random.below(mutated.count + 1))
                default: mutated.remove(at: random.below(mutated.count))
                }
                if (try? TypedJSON.value(from: mutated)) != nil { parsed += 1 }
            }
        }
        for _ in 0 ..< 2000 {
            let bytes = (0 ..< random.below(24)).map { _ in alphabet[random.below(alphabet.count)] }
            _ = try? TypedJSON.value(from: bytes)
        }
        #expect(parsed > 0)
    }

    @Test func deepTypedJSONThrowsWithoutOverflowing() {
        for opener in ["[", #"{"a":"#, #"{"$dict":"#] {
            let text = String(repeating: opener, count: 100_000)
            #expect(throws: TypedJSONError.self) { try TypedJSON.value(from: text) }
        }
    }
}

private extension Array {
    func repeated(_ count: Int) -> [Element] {
        [[Element]](repeating: self, count: count).flatMap { $0 }
    }
}
