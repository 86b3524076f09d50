import Testing
@testable import KVStore

/// ``ByteReader``'s varints and lengths (a one-byte fast path inline, longer ones out of line)
/// against a plain model of the rule: unsigned LEB128, at most 10 bytes, fitting 64 bits;
/// overlong forms read; errors located at the varint's first byte.
@Suite struct ByteReaderVarintTests {
    /// The model: the value and length of the varint at the start of `bytes`, or nil when it is
    /// cut short or overflows.
    static func model(_ bytes: ArraySlice<UInt8>) -> (value: UInt64, length: Int)? {
        var value: UInt64 = 0
        for (index, byte) in bytes.prefix(10).enumerated() {
            if index == 9 && byte > 1 { return nil }
            value |= UInt64(byte & 0x7F) << (7 * UInt64(index))
            if byte & 0x80 == 0 { return (value, index + 1) }
        }
        return nil
    }

    /// Reads a varint from `bytes[start ..< end]` and checks it against the model, and a length.
    static func check(_ bytes: [UInt8], start: Int = 0, end: Int? = nil) {
        let end = end ?? bytes.count
        bytes.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer, offset: start, end: end)
            let read = Result { () throws(ValueDecodingError) in try reader.readVarint("n") }
            switch (read, model(bytes[start ..< end])) {
            case (.success(let value), let expected?):
                #expect(value == expected.value && reader.offset == start + expected.length, "\(bytes) \(start)..<\(end)")
            case (.failure(let error), nil):
                #expect(error.offset == start, "\(bytes)")
                #expect(error.problem == "truncated n" || error.problem == "varint of n overflows 64 bits", "\(error)")
            case (let read, let expected):
                Issue.record("\(bytes) \(start)..<\(end): read \(read), expected \(String(describing: expected))")
            }
            var lengthReader = ByteReader(buffer, offset: start, end: end)
            let length = Result { () throws(ValueDecodingError) in try lengthReader.readLength("n", minimumElementSize: 2) }
            if let expected = model(bytes[start ..< end]) {
                let left = end - start - expected.length
                if expected.value <= UInt64(left / 2) {
                    #expect(length == .success(Int(expected.value)))
                } else {
                    #expect(length == .failure(ValueDecodingError(offset: start, problem: "truncated n: length \(expected.value) exceeds the \(left) bytes left")))
                }
            } else {
                #expect(throws: ValueDecodingError.self) { try length.get() }
            }
        }
    }

    @Test func everyOneAndTwoByteInputReadsAsTheModelSays() {
        Self.check([])
        for first in 0 ... 255 {
            Self.check([UInt8(first)])
            Self.check([UInt8(first), 0x01])
            // After a byte with its high bit set, the second byte decides.
            if first >= 0x80 { for second in 0 ... 255 { Self.check([UInt8(first), UInt8(second)]) } }
        }
    }

    @Test func boundariesOverlongFormsAndOverflowReadAsTheModelSays() {
        var inputs: [[UInt8]] = []
        for bits in 0 ... 64 {
            let value: UInt64 = bits == 64 ? .max : (1 << UInt64(bits))
            for candidate in [value, value &- 1] {
                var bytes: [UInt8] = []
                ValueCodec.appendVarint(candidate, to: &bytes)
                inputs.append(bytes)
                inputs.append(bytes + [0x00, 0x05])   // followed by more bytes
                if bytes.count < 10 {
                    var overlong = bytes
                    overlong[overlong.count - 1] |= 0x80
                    inputs.append(overlong + [0x00])
                }
            }
        }
        for length in 1 ... 12 {
            inputs.append([UInt8](repeating: 0x80, count: length - 1) + [0x00])
            inputs.append([UInt8](repeating: 0xFF, count: length - 1) + [0x01])
            inputs.append([UInt8](repeating: 0xFF, count: length - 1) + [0x02])
            inputs.append([UInt8](repeating: 0xFF, count: length))
        }
        for bytes in inputs {
            for end in 0 ... bytes.count { Self.check(bytes, end: end) }
            Self.check([0x7F] + bytes, start: 1)
        }
        var random = CodecRandom(seed: 0xB17E)
        for _ in 0 ..< 5_000 {
            let bytes = (0 ..< random.below(12)).map { _ in random.below(4) == 0 ? random.byte() : random.byte() | 0x80 }
            Self.check(bytes)
        }
    }
}
