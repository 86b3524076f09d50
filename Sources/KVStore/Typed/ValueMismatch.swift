import Foundation

/// The words of a type-mismatch message: `expected a string, found integer 42`.
enum ValueMismatch {
    static func error(expected: String, found value: Value?, path: [any CodingKey]) -> ModelError {
        guard let value else {
            return ModelError(code: .missingKey, message: "missing, expected \(expected)", keyPath: CodingPathText.text(path))
        }
        return ModelError(
            code: .typeMismatch, message: "expected \(expected), found \(describe(value))",
            keyPath: CodingPathText.text(path))
    }

    /// What a property of type `type` expects, for a message.
    static func expectation(_ type: Any.Type) -> String {
        switch type {
        case is String.Type, is URL.Type, is UUID.Type: "a string"
        case is Bool.Type: "a bool"
        case is Double.Type, is Float.Type: "a number"
        case is Date.Type: "a date"
        case is Data.Type: "bytes"
        case is Decimal.Type: "a decimal number"
        case is RecordRef.Type: "a reference"
        case is any FixedWidthInteger.Type: "an integer"
        default: "a value of type \(type)"
        }
    }

    /// A short description of a found value: its type, and the value itself when it is short.
    static func describe(_ value: Value) -> String {
        switch value {
        case .null: "null"
        case .bool(let b): "bool \(b)"
        case .int(let i): "integer \(i)"
        case .double(let d): "double \(d)"
        case .string(let s): s.count <= 40 ? "string \"\(s)\"" : "a string of \(s.count) characters"
        case .bytes(let d): "\(d.count) bytes"
        case .date(let d): "date \(TypedJSONDate.text(of: d))"
        case .array(let a): "an array of \(a.count) elements"
        case .dictionary: "a dictionary"
        case .reference(let r): "reference \(r)"
        }
    }
}
