extension JSONParser {
    /// Parses a JSON string at `position` (on its opening quote): escapes decoded, surrogate pairs
    /// combined, UTF-8 validated; unescaped control characters and lone surrogates are errors.
    mutating func parseString() throws(TypedJSONError) -> String {
        let openingQuote = position
        position += 1
        var segmentStart = position
        var unescaped: [UInt8] = []
        var hasEscapes = false
        while true {
            guard let byte = peek() else { throw error("unterminated string", at: openingQuote) }
            switch byte {
            case UInt8(ascii: "\""):
                let tail = UnsafeBufferPointer(rebasing: input[segmentStart ..< position])
                position += 1
                guard hasEscapes else { return String(decoding: tail, as: UTF8.self) }
                unescaped.append(contentsOf: tail)
                return String(decoding: unescaped, as: UTF8.self)
            case UInt8(ascii: "\\"):
                hasEscapes = true
                unescaped.append(contentsOf: input[segmentStart ..< position])
                try parseEscape(into: &unescaped)
                segmentStart = position
            case 0 ..< 0x20:
                throw error("unescaped control character \(ValueCodec.hex(byte)) in string")
            case 0x20 ..< 0x80:
                position += 1
            default:
                try skipUTF8Scalar()
            }
        }
    }

    /// Decodes the escape at `position` (on its backslash) and appends its UTF-8.
    private mutating func parseEscape(into bytes: inout [UInt8]) throws(TypedJSONError) {
        let start = position
        position += 1
        guard let letter = peek() else { throw error("unterminated string") }
        position += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(letter)
        case UInt8(ascii: "b"): bytes.append(0x08)
        case UInt8(ascii: "f"): bytes.append(0x0C)
        case UInt8(ascii: "n"): bytes.append(0x0A)
        case UInt8(ascii: "r"): bytes.append(0x0D)
        case UInt8(ascii: "t"): bytes.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4(escapeStart: start)
            if (0xDC00 ... 0xDFFF).contains(scalar) {
                throw error("lone surrogate \\u\(String(scalar, radix: 16, uppercase: true)) in string", at: start)
            }
            if (0xD800 ... 0xDBFF).contains(scalar) {
                let lowStart = position
                guard peek() == UInt8(ascii: "\\"), position + 1 < input.count,
                      input[position + 1] == UInt8(ascii: "u")
                else {
                    throw error("lone surrogate \\u\(String(scalar, radix: 16, uppercase: true)) in string", at: start)
                }
                position += 2
                let low = try parseHex4(escapeStart: lowStart)
                guard (0xDC00 ... 0xDFFF).contains(low) else {
                    throw error("lone surrogate \\u\(String(scalar, radix: 16, uppercase: true)) in string", at: start)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            // Not a surrogate, so a valid scalar.
            bytes.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
        default:
            throw error("invalid escape '\\\(Character(Unicode.Scalar(letter)))' in string", at: start)
        }
    }

    /// Four hex digits after `\u`.
    private mutating func parseHex4(escapeStart: Int) throws(TypedJSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0 ..< 4 {
            guard let byte = peek() else { throw error("unterminated string") }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("expected 4 hex digits after \\u in string", at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// Checks one multi-byte UTF-8 scalar at `position` (well-formed per Unicode table 3-7) and skips it.
    private mutating func skipUTF8Scalar() throws(TypedJSONError) {
        let lead = input[position]
        let count: Int
        var secondRange: ClosedRange<UInt8> = 0x80 ... 0xBF
        switch lead {
        case 0xC2 ... 0xDF: count = 2
        case 0xE0: count = 3; secondRange = 0xA0 ... 0xBF
        case 0xE1 ... 0xEC, 0xEE ... 0xEF: count = 3
        case 0xED: count = 3; secondRange = 0x80 ... 0x9F
        case 0xF0: count = 4; secondRange = 0x90 ... 0xBF
        case 0xF1 ... 0xF3: count = 4
        case 0xF4: count = 4; secondRange = 0x80 ... 0x8F
        default: throw error("invalid UTF-8 byte \(ValueCodec.hex(lead)) in string")
        }
        guard input.count - position >= count else { throw error("invalid UTF-8 (truncated sequence) in string") }
        for index in 1 ..< count {
            let byte = input[position + index]
            let range = index == 1 ? secondRange : 0x80 ... 0xBF
            guard range.contains(byte) else { throw error("invalid UTF-8 sequence in string") }
        }
        position += count
    }
}
