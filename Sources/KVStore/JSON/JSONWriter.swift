import Foundation

/// Writes typed JSON (see ``TypedJSON``) as UTF-8 bytes, deterministically.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    let pretty: Bool
    private var indent = 0

    init(pretty: Bool) {
        self.pretty = pretty
        bytes.reserveCapacity(64)
    }

    mutating func write(_ value: Value) {
        switch value {
        case .null:
            append("null")
        case .bool(let flag):
            append(flag ? "true" : "false")
        case .int(let int):
            append(String(int))
        case .double(let double):
            if double.isFinite {
                append(Self.text(of: double))
            } else {
                writeTagged("$double", text: double.isNaN ? "NaN" : double < 0 ? "-Infinity" : "Infinity")
            }
        case .string(let string):
            writeString(string)
        case .bytes(let data):
            writeTagged("$bytes", text: data.base64EncodedString())
        case .date(let date):
            writeDate(date)
        case .array(let elements):
            writeArray(elements)
        case .dictionary(let dictionary):
            if dictionary.count == 1, let key = dictionary.keys.first, key.utf8.first == UInt8(ascii: "$") {
                // {"$dict":{...}}: the inner object is written as it is.
                bytes.append(UInt8(ascii: "{"))
                indent += 1
                newline()
                writeString("$dict")
                colon()
                writeObject(dictionary)
                indent -= 1
                newline()
                bytes.append(UInt8(ascii: "}"))
            } else {
                writeObject(dictionary)
            }
        case .reference(let ref):
            writeTagged("$ref", text: ref.description)
        }
    }

    /// A finite double in Swift's shortest round-trip form, which always holds `.` or `e`.
    static func text(of double: Double) -> String {
        double.description
    }

    // MARK: - Containers

    private mutating func writeArray(_ elements: [Value]) {
        bytes.append(UInt8(ascii: "["))
        if elements.isEmpty {
            bytes.append(UInt8(ascii: "]"))
            return
        }
        indent += 1
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            newline()
            write(element)
        }
        indent -= 1
        newline()
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func writeObject(_ dictionary: [String: Value]) {
        bytes.append(UInt8(ascii: "{"))
        if dictionary.isEmpty {
            bytes.append(UInt8(ascii: "}"))
            return
        }
        indent += 1
        for (index, position) in UTF8Text.sortedIndices(dictionary).enumerated() {
            let member = dictionary[position]
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            newline()
            writeString(member.key)
            colon()
            write(member.value)
        }
        indent -= 1
        newline()
        bytes.append(UInt8(ascii: "}"))
    }

    // MARK: - Tagged scalars

    /// `{"$tag":"text"}`, on one line even when pretty.
    private mutating func writeTagged(_ tag: String, text: String) {
        bytes.append(UInt8(ascii: "{"))
        writeString(tag)
        colon()
        writeString(text)
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func writeDate(_ date: Date) {
        switch TypedJSONDate.form(of: date) {
        case .text(let text):
            writeTagged("$date", text: text)
        case .seconds(let seconds):
            bytes.append(UInt8(ascii: "{"))
            writeString("$date")
            colon()
            append(Self.text(of: seconds))
            bytes.append(UInt8(ascii: "}"))
        }
    }

    // MARK: - Strings and layout

    /// A JSON string: `"` and `\` escaped, control characters as `\n`, `\t`… or `\u00XX`, everything
    /// else (non-ASCII included) as UTF-8.
    private mutating func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case 0 ..< 0x20:
                append("\\u00")
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func colon() {
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
    }

    /// In pretty output, a line break and the current indentation; nothing in compact output.
    private mutating func newline() {
        guard pretty else { return }
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }
}
