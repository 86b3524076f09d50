import Foundation

/// Decodes any `Decodable` type from a ``Value``: the reverse of ``ValueEncoder``.
///
/// Reading is strict about types, so a record that drifted from the model is reported rather than
/// guessed at: integer properties read ints only (and check the range: `300` for a `UInt8` is a
/// ``ModelError/Code/valueOutOfRange`` error); `Double` and `Float` read doubles and ints; `Date`
/// reads dates, `Data` bytes, `URL` and `UUID` strings, `Decimal` its text (or an int or double),
/// ``RecordRef`` references. An optional
/// reads nil for a missing key **and for an explicit `null`** (records hold no `null` at their
/// top level, but nested dictionaries and arrays may); a non-optional property whose key is
/// missing is a ``ModelError/Code/missingKey`` error. Keys the model does not know are ignored.
///
/// ```swift
/// struct Address: Codable { var city: String; var zip: String? }
/// let address = try ValueDecoder().decode(Address.self, from: ["city": "London"])
/// // Address(city: "London", zip: nil)
/// ```
public struct ValueDecoder: Sendable {
    /// A decoder.
    public init() {}

    /// A `T` from `value`.
    /// - Throws: ``ModelError`` naming the key path (`customer.address.zip: expected a string,
    ///   found integer 42`), or what the type's own `init(from:)` throws.
    public func decode<T: Decodable>(_ type: T.Type, from value: Value) throws -> T {
        do {
            return try ValueUnboxing.unbox(value, as: type, path: [])
        } catch let error as DecodingError {
            throw ModelError(error)
        }
    }

    /// A `T` from a record's values.
    public func decode<T: Decodable>(_ type: T.Type, from values: [String: Value]) throws -> T {
        try decode(type, from: .dictionary(values))
    }
}

/// Reading values as Swift types, with the path for errors.
enum ValueUnboxing {
    static func unbox<T: Decodable>(_ value: Value, as type: T.Type, path: [any CodingKey]) throws -> T {
        if let special = try special(value, as: type, path: path) { return special }
        return try T(from: ValueDecoding(value: value, codingPath: path))
    }

    /// The store's own types, read directly; nil for any other type.
    private static func special<T>(_ value: Value, as type: T.Type, path: [any CodingKey]) throws -> T? {
        // Metatype comparisons: much cheaper than casts that fail for every other type.
        if type == Date.self {
            guard case .date(let date) = value else { throw mismatch(type, value, path) }
            return (date as! T)
        }
        if type == Data.self {
            guard case .bytes(let data) = value else { throw mismatch(type, value, path) }
            return (data as! T)
        }
        if type == URL.self {
            guard case .string(let text) = value else { throw mismatch(type, value, path) }
            guard let url = URL(string: text) else { throw invalid("\"\(text)\" is not a URL", path) }
            return (url as! T)
        }
        if type == UUID.self {
            guard case .string(let text) = value else { throw mismatch(type, value, path) }
            guard let uuid = UUID(uuidString: text) else { throw invalid("\"\(text)\" is not a UUID", path) }
            return (uuid as! T)
        }
        if type == RecordRef.self {
            guard case .reference(let ref) = value else { throw mismatch(type, value, path) }
            return (ref as! T)
        }
        if type == Decimal.self { return (try decimal(value, path) as! T) }
        return nil
    }

    /// A `Decimal` from its decimal text, or from a number that key-value coding stored.
    private static func decimal(_ value: Value, _ path: [any CodingKey]) throws -> Decimal {
        switch value {
        case .int(let int): return Decimal(int)
        case .double(let double) where double.isFinite: return Decimal(double)
        case .string("NaN"): return Decimal.nan
        case .string(let text):
            guard text.wholeMatch(of: decimalText) != nil, let decimal = Decimal(string: text) else {
                throw invalid("\"\(text)\" is not a decimal number", path)
            }
            return decimal
        default: throw mismatch(Decimal.self, value, path)
        }
    }

    /// What `Decimal.description` writes; `Decimal(string:)` alone also accepts trailing garbage.
    nonisolated(unsafe) private static let decimalText = #/[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?/#

    static func mismatch(_ type: Any.Type, _ value: Value?, _ path: [any CodingKey]) -> ModelError {
        ValueMismatch.error(expected: ValueMismatch.expectation(type), found: value, path: path)
    }

    static func invalid(_ message: String, _ path: [any CodingKey]) -> ModelError {
        ModelError(code: .invalidValue, message: message, keyPath: CodingPathText.text(path))
    }

    static func bool(_ value: Value, _ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, path()) }
        return bool
    }

    static func string(_ value: Value, _ path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, value, path()) }
        return string
    }

    static func double(_ value: Value, _ path: @autoclosure () -> [any CodingKey]) throws -> Double {
        switch value {
        case .double(let double): return double
        case .int(let int): return Double(int)
        default: throw mismatch(Double.self, value, path())
        }
    }

    static func float(_ value: Value, _ path: @autoclosure () -> [any CodingKey]) throws -> Float {
        let double = try double(value, path())
        let float = Float(double)
        if float.isInfinite && double.isFinite {
            throw ModelError(code: .valueOutOfRange, message: "\(double) does not fit in Float", keyPath: CodingPathText.text(path()))
        }
        return float
    }

    static func integer<I: FixedWidthInteger>(_ value: Value, _ path: @autoclosure () -> [any CodingKey]) throws -> I {
        guard case .int(let int) = value else { throw mismatch(I.self, value, path()) }
        guard let result = I(exactly: int) else {
            throw ModelError(code: .valueOutOfRange, message: "\(int) does not fit in \(I.self)", keyPath: CodingPathText.text(path()))
        }
        return result
    }
}

struct ValueDecoding: Decoder {
    let value: Value
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let dictionary) = value else {
            throw ValueMismatch.error(expected: "a dictionary", found: value, path: codingPath)
        }
        return KeyedDecodingContainer(KeyedValueDecoding<Key>(dictionary: dictionary, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw ValueMismatch.error(expected: "an array", found: value, path: codingPath)
        }
        return UnkeyedValueDecoding(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueDecoding(value: value, codingPath: codingPath)
    }
}
