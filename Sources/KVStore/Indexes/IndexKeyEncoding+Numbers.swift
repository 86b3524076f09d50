/// Numbers and dates in an index key: exact, ints and doubles in one order (see ``IndexKeyEncoding``).
extension IndexKeyEncoding {
    /// The bias added to a binary exponent (the smallest, a subnormal's, is -1074).
    static let exponentBias = 1100
    /// The exponent field of infinity.
    static let infiniteExponent: UInt16 = 0xFFFF

    /// Appends an int as a number (`base` ``Class/number``) component.
    static func appendNumber(_ int: Int64, base: UInt8, to out: inout [UInt8]) {
        if int == 0 {
            out.append(base + Class.zero)
            return
        }
        appendMagnitude(int.magnitude, lowestBitExponent: 0, negative: int < 0, base: base, to: &out)
    }

    /// Appends a double as a number or date component (`base` ``Class/number`` or ``Class/date``).
    static func appendNumber(_ double: Double, base: UInt8, to out: inout [UInt8]) {
        if double.isNaN {
            out.append(base + Class.notANumber)
        } else if double == 0 {
            out.append(base + Class.zero)
        } else if double.isInfinite {
            appendFields(exponent: infiniteExponent, fraction: 0, negative: double < 0, base: base, to: &out)
        } else {
            let bits = double.bitPattern
            let biased = Int((bits >> 52) & 0x7FF), fraction = bits & (1 << 52 - 1)
            // A subnormal is fraction × 2^-1074; a normal one (2^52 + fraction) × 2^(biased - 1075).
            let (magnitude, exponent) = biased == 0 ? (fraction, -1074) : (fraction | 1 << 52, biased - 1075)
            appendMagnitude(magnitude, lowestBitExponent: exponent, negative: double < 0, base: base, to: &out)
        }
    }

    /// Appends `magnitude × 2^lowestBitExponent` (magnitude > 0) with its sign.
    private static func appendMagnitude(
        _ magnitude: UInt64, lowestBitExponent: Int, negative: Bool, base: UInt8, to out: inout [UInt8]
    ) {
        let leadingZeros = magnitude.leadingZeroBitCount
        let exponent = 63 - leadingZeros + lowestBitExponent
        // The bits after the leading 1, left-aligned (none left when the magnitude is 1).
        let fraction = leadingZeros == 63 ? 0 : magnitude << (leadingZeros + 1)
        appendFields(exponent: UInt16(exponent + exponentBias), fraction: fraction, negative: negative, base: base, to: &out)
    }

    private static func appendFields(exponent: UInt16, fraction: UInt64, negative: Bool, base: UInt8, to out: inout [UInt8]) {
        out.append(base + (negative ? Class.negative : Class.positive))
        // Big-endian, inverted when negative, into room made once.
        let (exponent, fraction) = negative ? (~exponent, ~fraction) : (exponent, fraction)
        out.reserveCapacity(out.count + 10)
        out.append(UInt8(truncatingIfNeeded: exponent >> 8))
        out.append(UInt8(truncatingIfNeeded: exponent))
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: fraction >> UInt64(shift))) }
    }

    /// The body length of a numeric (number or date) class byte `byte` whose base is `base`: 10
    /// for a sign, 0 for zero and NaN.
    static func numericBodyLength(_ byte: UInt8, base: UInt8) -> Int {
        byte == base + Class.negative || byte == base + Class.positive ? 10 : 0
    }
}
