import Foundation

/// A typed value stored under a key of a record.
///
/// Records are dictionaries of `String → Value`. Values nest: arrays and dictionaries hold
/// values, and a ``reference(_:)`` points at another record.
///
/// ```swift
/// let person: [String: Value] = [
///     "name": "Ada",                       // .string
///     "born": 1815,                        // .int
///     "tags": ["math", "poetry"],          // .array
///     "address": ["city": "London"],       // .dictionary
///     "spouse": .reference(try RecordRef("person/william")),
/// ]
/// ```
///
/// Two values are equal when they are of the same type and hold the same content; doubles compare
/// by their bits, so `NaN == NaN` and `0.0 != -0.0`. Setting a key to a value equal to the stored one
/// is a no-op (no journal entry, no notification).
public enum Value: Sendable {
    /// No value: JSON's `null`. A record holds none at its top level (setting it removes the key).
    case null
    /// A boolean (a scalar).
    case bool(Bool)
    /// A 64-bit signed integer (a scalar).
    case int(Int64)
    /// A double, compared by its bits (a scalar).
    case double(Double)
    /// Text.
    case string(String)
    /// Raw bytes.
    case bytes(Data)
    /// A point in time (a scalar).
    case date(Date)
    /// An ordered list of values.
    case array([Value])
    /// Values by key: a nested dictionary, whose keys may be any text.
    case dictionary([String: Value])
    /// A reference to another record, which key paths follow.
    case reference(RecordRef)
}

/// The type of a ``Value``, as kinds declare it for their keys.
public enum ValueType: String, Sendable, CaseIterable, CustomStringConvertible {
    /// ``Value/null``.
    case null
    /// ``Value/bool(_:)``, a scalar.
    case bool
    /// ``Value/int(_:)``, a scalar.
    case int
    /// ``Value/double(_:)``, a scalar (a key declared `double` also takes ints).
    case double
    /// ``Value/string(_:)``.
    case string
    /// ``Value/bytes(_:)``.
    case bytes
    /// ``Value/date(_:)``, a scalar.
    case date
    /// ``Value/array(_:)``.
    case array
    /// ``Value/dictionary(_:)``.
    case dictionary
    /// ``Value/reference(_:)``.
    case reference

    /// Scalars are the types that have no "absent" state of their own: setting nil on a key that holds
    /// (or is declared as) a scalar calls the kind's nil-for-scalar hook.
    public var isScalar: Bool {
        switch self {
        case .bool, .int, .double, .date: true
        default: false
        }
    }

    /// The type's name: `int`, `string`, …
    public var description: String { rawValue }
}

extension Value {
    /// The value's type.
    public var type: ValueType {
        switch self {
        case .null: .null
        case .bool: .bool
        case .int: .int
        case .double: .double
        case .string: .string
        case .bytes: .bytes
        case .date: .date
        case .array: .array
        case .dictionary: .dictionary
        case .reference: .reference
        }
    }

    /// `true` for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The boolean, or nil for any other type.
    public var boolValue: Bool? {
        if case .bool(let v) = self { return v }
        return nil
    }

    /// The integer, or nil for any other type (a double is not converted).
    public var intValue: Int64? {
        if case .int(let v) = self { return v }
        return nil
    }

    /// The value as a double: doubles as they are, ints converted.
    public var doubleValue: Double? {
        switch self {
        case .double(let v): v
        case .int(let v): Double(v)
        default: nil
        }
    }

    /// The string, or nil for any other type.
    public var stringValue: String? {
        if case .string(let v) = self { return v }
        return nil
    }

    /// The bytes, or nil for any other type.
    public var bytesValue: Data? {
        if case .bytes(let v) = self { return v }
        return nil
    }

    /// The date, or nil for any other type.
    public var dateValue: Date? {
        if case .date(let v) = self { return v }
        return nil
    }

    /// The array's elements, or nil for any other type.
    public var arrayValue: [Value]? {
        if case .array(let v) = self { return v }
        return nil
    }

    /// The dictionary, or nil for any other type.
    public var dictionaryValue: [String: Value]? {
        if case .dictionary(let v) = self { return v }
        return nil
    }

    /// The reference, or nil for any other type.
    public var referenceValue: RecordRef? {
        if case .reference(let v) = self { return v }
        return nil
    }
}

extension Value: Equatable {
    /// Whether two values have the same type and content; doubles and dates compare by their bits
    /// (`NaN == NaN`, `0.0 != -0.0`), and an int never equals a double.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.date(let a), .date(let b)):
            a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case (.array(let a), .array(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)): a == b
        case (.reference(let a), .reference(let b)): a == b
        default: false
        }
    }
}

extension Value: Hashable {
    /// Hashes the type and the content that ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        switch self {
        case .null: break
        case .bool(let v): hasher.combine(v)
        case .int(let v): hasher.combine(v)
        case .double(let v): hasher.combine(v.bitPattern)
        case .string(let v): hasher.combine(v)
        case .bytes(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v.timeIntervalSinceReferenceDate.bitPattern)
        case .array(let v): hasher.combine(v)
        case .dictionary(let v): hasher.combine(v)
        case .reference(let v): hasher.combine(v)
        }
    }
}

extension Value: ExpressibleByBooleanLiteral {
    /// `true` and `false` are ``bool(_:)`` values.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension Value: ExpressibleByIntegerLiteral {
    /// An integer literal is an ``int(_:)`` value.
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension Value: ExpressibleByFloatLiteral {
    /// A floating-point literal is a ``double(_:)`` value.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension Value: ExpressibleByStringLiteral {
    /// A string literal is a ``string(_:)`` value.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension Value: ExpressibleByArrayLiteral {
    /// An array literal is an ``array(_:)`` value.
    public init(arrayLiteral elements: Value...) { self = .array(elements) }
}

extension Value: ExpressibleByDictionaryLiteral {
    /// A dictionary literal is a ``dictionary(_:)`` value.
    public init(dictionaryLiteral elements: (String, Value)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
