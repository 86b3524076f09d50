import Foundation
@testable import KVStore

/// Seeded values of every tag and byte-level damage, for checking the pass-through check
/// (``ValueCheck``) against the decoder.
struct ValueSampler {
    var random: CodecRandom
    /// Whether dictionary keys may be non-ASCII (the check refuses those; the decoder may not).
    var asciiKeysOnly = false

    init(seed: UInt64, asciiKeysOnly: Bool = false) {
        random = CodecRandom(seed: seed)
        self.asciiKeysOnly = asciiKeysOnly
    }

    /// A record: no `null` at its top level, as a store holds it.
    mutating func record() -> [String: Value] {
        dictionary(depth: 1).filter { !$0.value.isNull }
    }

    mutating func value(depth: Int) -> Value {
        switch random.below(depth >= 5 ? 8 : 11) {
        case 0: return .null
        case 1: return .bool(random.below(2) == 0)
        case 2: return .int(int())
        case 3: return .double(double())
        case 4: return .string(string())
        case 5: return .bytes(Data((0 ..< random.below(6)).map { _ in random.byte() }))
        case 6: return .date(Date(timeIntervalSinceReferenceDate: double()))
        case 7: return .reference(reference())
        case 8: return .array((0 ..< random.below(4)).map { _ in value(depth: depth + 1) })
        default: return .dictionary(dictionary(depth: depth + 1))
        }
    }

    mutating func dictionary(depth: Int) -> [String: Value] {
        var result: [String: Value] = [:]
        for _ in 0 ..< random.below(5) { result[key()] = value(depth: depth) }
        return result
    }

    /// Ints of every width and sign, the boundaries of each varint length among them.
    mutating func int() -> Int64 {
        let boundaries: [Int64] = [0, 1, -1, 63, -64, 64, -65, 127, 128, -128, 8191, -8192, 8192,
                                   Int64(Int8.max), Int64(Int8.min), Int64(Int16.max), Int64(Int16.min),
                                   Int64(Int32.max), Int64(Int32.min), Int64(UInt32.max), .max, .min, .max - 1, .min + 1]
        if random.below(2) == 0 { return boundaries[random.below(boundaries.count)] }
        let width = random.below(64) + 1
        let magnitude = Int64(bitPattern: random.next() >> UInt64(64 - width))
        return random.below(2) == 0 ? magnitude : ~magnitude
    }

    /// NaN (quiet, signalling, with payloads and sign), ±0, ±∞, subnormals, or any bit pattern.
    mutating func double() -> Double {
        let specials: [UInt64] = [Double.nan.bitPattern, Double.signalingNaN.bitPattern, 0xFFF8_0000_0000_0001,
                                  0x7FF0_0000_0000_0001, (-0.0 as Double).bitPattern, 0, Double.infinity.bitPattern,
                                  (-Double.infinity).bitPattern, 1, 0x8000_0000_0000_0001, (1.5 as Double).bitPattern]
        if random.below(2) == 0 { return Double(bitPattern: specials[random.below(specials.count)]) }
        return Double(bitPattern: random.next())
    }

    /// Empty, ASCII, precomposed and decomposed accents, combining marks, emoji, NUL, or random scalars.
    mutating func string() -> String {
        let pool = ["", "a", "Ada", "é", "e\u{301}", "\u{301}", "😀", "👩‍👩‍👧", "日本語", "\u{0}", "a/b", "\r\n", "\u{FEFF}x"]
        if random.below(2) == 0 { return pool[random.below(pool.count)] }
        var scalars = String.UnicodeScalarView()
        for _ in 0 ..< random.below(6) {
            let ranges: [ClosedRange<UInt32>] = [0x20 ... 0x7E, 0x80 ... 0x7FF, 0x800 ... 0xD7FF, 0xE000 ... 0xFFFF, 0x10000 ... 0x10FFFF]
            let range = ranges[random.below(ranges.count)]
            if let scalar = Unicode.Scalar(range.lowerBound + UInt32(random.below(Int(range.upperBound - range.lowerBound) + 1))) {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    mutating func key() -> String {
        let ascii = ["", "a", "b", "name", "k1", "k10", "K", "a.b", "~", "\u{7F}"]
        if asciiKeysOnly || random.below(4) > 0 { return ascii[random.below(ascii.count)] }
        return ["é", "e\u{301}", "日", "😀", "a\u{301}"][random.below(5)]
    }

    mutating func reference() -> RecordRef {
        let refs = ["person/ada", "a/b/c", "x.y-z/\u{301}b", "k/é", "k/e\u{301}", "_/😀"]
        return try! RecordRef(refs[random.below(refs.count)])
    }

    /// `bytes` damaged once: a bit flipped, a byte set to a telling value, a byte inserted or
    /// removed, cut short, a 4-byte window set to a small little-endian number (an offset), or a
    /// slice repeated.
    mutating func damaged(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        guard !bytes.isEmpty else { return [random.byte()] }
        let position = random.below(bytes.count)
        switch random.below(7) {
        case 0: bytes[position] ^= 1 << UInt8(random.below(8))
        case 1: bytes[position] = [0x00, 0x01, 0x02, 0x7F, 0x80, 0x81, 0xFF, random.byte()][random.below(8)]
        case 2: bytes.insert([0x00, 0x80, 0xFF, random.byte()][random.below(4)], at: position)
        case 3: bytes.remove(at: position)
        case 4: bytes.removeLast(bytes.count - position)
        case 5:
            let number = UInt32(random.below(bytes.count + 2))
            for index in 0 ..< 4 where position + index < bytes.count {
                bytes[position + index] = UInt8(truncatingIfNeeded: number >> (8 * UInt32(index)))
            }
        default:
            let end = min(bytes.count, position + 1 + random.below(8))
            bytes.insert(contentsOf: bytes[position ..< end], at: position)
        }
        return bytes
    }
}

/// Byte-level pieces of the value encoding, put together by hand: non-canonical and hostile
/// forms the encoder never writes.
enum EncodingPieces {
    static func varint(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        ValueCodec.appendVarint(value, to: &bytes)
        return bytes
    }

    /// `value`'s varint padded to `length` bytes (an overlong form the decoder reads all the same).
    static func overlong(_ value: UInt64, length: Int) -> [UInt8] {
        var bytes = varint(value)
        bytes[bytes.count - 1] |= 0x80
        bytes += Array(repeating: 0x80, count: length - bytes.count - 1) + [0x00]
        return bytes
    }

    static func tagged(_ value: Value) -> [UInt8] {
        var bytes: [UInt8] = []
        ValueCodec.encode(value, into: &bytes)
        return bytes
    }

    /// One dictionary entry: the key's length (`keyLength` bytes when given), the key, the tagged value.
    static func entry(_ key: [UInt8], _ value: [UInt8], keyLength: [UInt8]? = nil) -> [UInt8] {
        (keyLength ?? varint(UInt64(key.count))) + key + value
    }

    static func entry(_ key: String, _ value: Value) -> [UInt8] {
        entry(Array(key.utf8), tagged(value))
    }

    /// A tagged dictionary holding `entries` as given (in that order, duplicates and all), with
    /// `count` and `offsets` as given or as the entries need them.
    static func dictionary(_ entries: [[UInt8]], count: [UInt8]? = nil, offsets: [UInt32]? = nil) -> [UInt8] {
        var table: [UInt32] = [0]
        for entry in entries { table.append(table.last! + UInt32(entry.count)) }
        var bytes = [ValueCodec.Tag.dictionary] + (count ?? varint(UInt64(entries.count)))
        for offset in offsets ?? table { withUnsafeBytes(of: offset.littleEndian) { bytes += $0 } }
        return bytes + entries.flatMap { $0 }
    }
}
