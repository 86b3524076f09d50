import Foundation

extension JSONParser {
    /// A value that is not an array or an object, at `position`.
    @inline(never)
    mutating func parseScalar() throws(TypedJSONError) -> Value {
        guard let byte = peek() else { throw error("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
            return try parseNumber()
        default:
            throw error("unexpected \(describeNext()), expected a value")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(TypedJSONError) {
        let count = literal.utf8CodeUnitCount
        let literalBytes = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        guard input.count - position >= count,
              input[position ..< position + count].elementsEqual(literalBytes)
        else { throw error("invalid literal, expected '\(literal)'") }
        position += count
    }

    /// The value of an object without `$dict` content: a dictionary, or the tagged value it spells.
    @inline(never)
    func interpretTag(_ object: RawObject) throws(TypedJSONError) -> Value {
        guard let tag = object.tag, let content = object.members[tag.key] else {
            return .dictionary(object.members)
        }
        let at = tag.valueOffset
        switch (tag.key, content) {
        case ("$date", .string(let text)):
            guard let date = TypedJSONDate.date(from: text) else {
                throw error("invalid $date '\(text)', expected ISO 8601 like 2016-07-15T00:00:00Z", at: at)
            }
            return .date(date)
        case ("$date", .int(let seconds)):
            return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case ("$date", .double(let seconds)):
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case ("$bytes", .string(let text)):
            guard let data = Data(base64Encoded: text) else { throw error("invalid base64 in $bytes", at: at) }
            return .bytes(data)
        case ("$double", .string("NaN")):
            return .double(.nan)
        case ("$double", .string("Infinity")):
            return .double(.infinity)
        case ("$double", .string("-Infinity")):
            return .double(-.infinity)
        case ("$ref", .string(let text)):
            do {
                return .reference(try RecordRef(text))
            } catch {
                throw self.error("invalid $ref: \(error.description)", at: at)
            }
        case ("$dict", .dictionary(let dictionary)):
            return .dictionary(dictionary)
        case ("$date", _), ("$bytes", _), ("$ref", _):
            throw error("\(tag.key) expects a string", at: at)
        case ("$double", _):
            throw error("$double expects \"NaN\", \"Infinity\" or \"-Infinity\"", at: at)
        case ("$dict", _):
            throw error("$dict expects an object", at: at)
        default:
            throw error(
                "unknown tag '\(tag.key)' (write a dictionary whose only key starts with '$' as {\"$dict\":{...}})",
                at: tag.keyOffset
            )
        }
    }

    // MARK: - Numbers

    mutating func parseNumber() throws(TypedJSONError) -> Value {
        let start = position
        let negative = peek() == UInt8(ascii: "-")
        if negative { position += 1 }
        guard isDigit(peek()) else { throw error("expected a digit in number") }
        if peek() == UInt8(ascii: "0") {
            position += 1
            if isDigit(peek()) { throw error("leading zeros are not allowed in numbers", at: start) }
        } else {
            skipDigits()
        }
        var isInteger = true
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard isDigit(peek()) else { throw error("expected a digit after '.' in number") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard isDigit(peek()) else { throw error("expected a digit in the exponent of number") }
            skipDigits()
        }
        let digits = input[(negative ? start + 1 : start) ..< position]
        if isInteger {
            // Accumulate negatively so that Int64.min fits.
            var result: Int64 = 0
            for byte in digits {
                let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
                let (next, overflow2) = times10.subtractingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else { throw numberError("integer", from: start) }
                result = next
            }
            if negative { return .int(result) }
            guard result != .min else { throw numberError("integer", from: start) }
            return .int(-result)
        }
        let text = String(decoding: input[start ..< position], as: UTF8.self)
        guard let double = Double(text), double.isFinite else { throw numberError("number", from: start) }
        return .double(double)
    }

    private func numberError(_ kind: String, from start: Int) -> TypedJSONError {
        let text = String(decoding: input[start ..< position], as: UTF8.self)
        let range = kind == "integer" ? "Int64" : "Double"
        return error("\(kind) \(text) is out of \(range) range", at: start)
    }

    mutating func skipDigits() {
        while isDigit(peek()) { position += 1 }
    }

    func isDigit(_ byte: UInt8?) -> Bool {
        guard let byte else { return false }
        return byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
