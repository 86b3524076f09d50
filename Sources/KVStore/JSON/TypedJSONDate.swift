import Foundation

/// The `$date` form of typed JSON: ISO 8601 in UTC, exact to the bit.
///
/// A `Date` is a `Double` number of seconds since 2001-01-01T00:00:00Z. The fraction of a second is
/// written with the digits of Swift's shortest round-trip form of that `Double`, and read back by
/// correctly rounded conversion of the exact decimal `seconds.fraction`, so every finite date below
/// 2^53 seconds from 2001 round-trips exactly (dates near 2001-01-01 may need many digits).
package enum TypedJSONDate {
    /// What `$date` holds for a date.
    package enum Form: Equatable {
        /// ISO 8601 text, or `NaN`, `Infinity`, `-Infinity`.
        case text(String)
        /// Seconds since 2001-01-01T00:00:00Z, for dates ISO 8601 text does not cover here (2^53 seconds
    /// or more from 2001, and -0.0).
        case seconds(Double)
    }

    /// Seconds from 1970-01-01 to 2001-01-01.
    private static let referenceUnixSeconds: Int64 = 978_307_200
    /// Beyond this many seconds from 2001, dates are written as numbers.
    static let isoLimit = 9_007_199_254_740_992.0  // 2^53
    /// The longest fraction of a second accepted on input.
    private static let maxFractionDigits = 1100

    /// The date as `$date` holds it, for messages: ISO 8601 text, `NaN`, `Infinity`, or seconds
    /// since 2001 (Foundation's own formatting traps on dates that are not finite).
    static func text(of date: Date) -> String {
        switch form(of: date) {
        case .text(let text): text
        case .seconds(let seconds): "\(seconds)"
        }
    }

    package static func form(of date: Date) -> Form {
        let interval = date.timeIntervalSinceReferenceDate
        if interval.isNaN { return .text("NaN") }
        if interval.isInfinite { return .text(interval < 0 ? "-Infinity" : "Infinity") }
        // -0.0 is written as a number so that its sign survives.
        if interval.magnitude >= isoLimit || (interval == 0 && interval.sign == .minus) { return .seconds(interval) }
        return .text(isoText(interval))
    }

    /// The date for a `$date` string; nil when it is not one of the accepted forms.
    static func date(from text: String) -> Date? {
        switch text {
        case "NaN": return Date(timeIntervalSinceReferenceDate: .nan)
        case "Infinity": return Date(timeIntervalSinceReferenceDate: .infinity)
        case "-Infinity": return Date(timeIntervalSinceReferenceDate: -.infinity)
        default: return parseISO(Array(text.utf8)).map { Date(timeIntervalSinceReferenceDate: $0) }
        }
    }

    // MARK: - Writing

    private static func isoText(_ interval: Double) -> String {
        let (integer, fraction) = decimalDigits(of: interval.magnitude)
        var seconds = Int64(integer) ?? 0
        var fractionDigits = fraction
        if interval < 0 {
            seconds = -seconds
            if !fraction.isEmpty {
                // -12.25 is -13 + 0.75.
                seconds -= 1
                fractionDigits = complement(fraction)
            }
        }
        let unix = seconds + referenceUnixSeconds
        let days = floorDivide(unix, 86_400)
        let secondOfDay = unix - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var text = yearText(year)
        text += "-" + pad(month, 2) + "-" + pad(day, 2)
        text += "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if !fractionDigits.isEmpty { text += "." + String(decoding: fractionDigits, as: UTF8.self) }
        return text + "Z"
    }

    /// The integer digits and the fraction digits (no trailing zeros) of a non-negative double's
    /// shortest round-trip decimal form, without exponent.
    private static func decimalDigits(of magnitude: Double) -> (integer: String, fraction: [UInt8]) {
        let text = Array(magnitude.description.utf8)
        let exponentIndex = text.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        let mantissa = text[..<(exponentIndex ?? text.endIndex)]
        let exponent = exponentIndex.flatMap { Int(String(decoding: text[($0 + 1)...], as: UTF8.self)) } ?? 0
        let point = mantissa.firstIndex(of: UInt8(ascii: ".")) ?? mantissa.endIndex
        let digits = Array(mantissa[..<point]) + Array(mantissa[point...].dropFirst())
        let pointPosition = (point - mantissa.startIndex) + exponent
        var integer: [UInt8]
        var fraction: [UInt8]
        if pointPosition <= 0 {
            integer = [UInt8(ascii: "0")]
            fraction = Array(repeating: UInt8(ascii: "0"), count: -pointPosition) + digits
        } else if pointPosition >= digits.count {
            integer = digits + Array(repeating: UInt8(ascii: "0"), count: pointPosition - digits.count)
            fraction = []
        } else {
            integer = Array(digits[..<pointPosition])
            fraction = Array(digits[pointPosition...])
        }
        while fraction.last == UInt8(ascii: "0") { fraction.removeLast() }
        while integer.count > 1 && integer.first == UInt8(ascii: "0") { integer.removeFirst() }
        return (String(decoding: integer, as: UTF8.self), fraction)
    }

    /// The n digits of 1 - 0.digits, for a non-zero fraction: "25" → "75", "001" → "999".
    private static func complement(_ digits: [UInt8]) -> [UInt8] {
        guard let last = digits.lastIndex(where: { $0 != UInt8(ascii: "0") }) else { return digits }
        var result = digits
        for index in result.indices {
            let digit = digits[index] - UInt8(ascii: "0")
            if index < last {
                result[index] = UInt8(ascii: "0") + 9 - digit
            } else if index == last {
                result[index] = UInt8(ascii: "0") + 10 - digit
            } else {
                result[index] = UInt8(ascii: "0")
            }
        }
        return result
    }

    private static func yearText(_ year: Int64) -> String {
        if (0 ... 9999).contains(year) { return pad(year, 4) }
        return (year < 0 ? "-" : "+") + pad(year.magnitude, 4)
    }

    private static func pad(_ number: some BinaryInteger, _ width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    // MARK: - Reading

    /// Seconds since 2001 for `[±]YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, or nil.
    private static func parseISO(_ text: [UInt8]) -> Double? {
        var scanner = DigitScanner(text: text)
        var sign: Int64 = 1
        var maxYearDigits = 4
        if scanner.skip(UInt8(ascii: "+")) {
            maxYearDigits = 9
        } else if scanner.skip(UInt8(ascii: "-")) {
            sign = -1
            maxYearDigits = 9
        }
        guard let yearDigits = scanner.number(minDigits: 4, maxDigits: maxYearDigits),
              scanner.skip(UInt8(ascii: "-")), let month = scanner.number(digits: 2),
              scanner.skip(UInt8(ascii: "-")), let day = scanner.number(digits: 2),
              scanner.skip(UInt8(ascii: "T")), let hour = scanner.number(digits: 2),
              scanner.skip(UInt8(ascii: ":")), let minute = scanner.number(digits: 2),
              scanner.skip(UInt8(ascii: ":")), let second = scanner.number(digits: 2)
        else { return nil }
        let year = sign * yearDigits
        guard (1 ... 12).contains(month), (1 ... daysInMonth(year: year, month: month)).contains(day),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction: [UInt8] = []
        if scanner.skip(UInt8(ascii: ".")) {
            fraction = scanner.digits()
            guard (1 ... maxFractionDigits).contains(fraction.count) else { return nil }
        }
        var offset: Int64 = 0
        if !scanner.skip(UInt8(ascii: "Z")) {
            let offsetSign: Int64 = scanner.skip(UInt8(ascii: "+")) ? 1 : scanner.skip(UInt8(ascii: "-")) ? -1 : 0
            guard offsetSign != 0, let offsetHours = scanner.number(digits: 2), offsetHours < 24,
                  scanner.skip(UInt8(ascii: ":")), let offsetMinutes = scanner.number(digits: 2), offsetMinutes < 60
            else { return nil }
            offset = offsetSign * (offsetHours * 3600 + offsetMinutes * 60)
        }
        guard scanner.isAtEnd else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset - referenceUnixSeconds
        guard let last = fraction.lastIndex(where: { $0 != UInt8(ascii: "0") }) else { return Double(seconds) }
        fraction.removeSubrange((last + 1)...)
        // The exact decimal seconds + 0.fraction, converted with correct rounding.
        let decimal = seconds >= 0
            ? "\(seconds)." + String(decoding: fraction, as: UTF8.self)
            : "-\(-(seconds + 1))." + String(decoding: complement(fraction), as: UTF8.self)
        return Double(decimal)
    }

    // MARK: - Calendar (proleptic Gregorian, after H. Hinnant's algorithms)

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2:
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return leap ? 29 : 28
        case 4, 6, 9, 11:
            return 30
        default:
            return 31
        }
    }
}

/// Reads fixed-width numbers and literal bytes from ASCII text.
private struct DigitScanner {
    let text: [UInt8]
    var index = 0

    var isAtEnd: Bool { index == text.count }

    mutating func skip(_ byte: UInt8) -> Bool {
        guard index < text.count, text[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func digits() -> [UInt8] {
        let start = index
        while index < text.count, (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(text[index]) { index += 1 }
        return Array(text[start ..< index])
    }

    mutating func number(digits count: Int) -> Int64? {
        number(minDigits: count, maxDigits: count)
    }

    mutating func number(minDigits: Int, maxDigits: Int) -> Int64? {
        let digits = digits()
        guard (minDigits ... maxDigits).contains(digits.count) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
    }
}
