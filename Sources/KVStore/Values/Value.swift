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
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case bytes(Data)
    case date(Date)
    case array([Value])
    case dictionary([String: Value])
    case reference(RecordRef)
}

/// The type of a ``Value``, as kinds declare it for their keys.
public enum ValueType: String, Sendable, CaseIterable, CustomStringConvertible {
    case null, bool, int, double, string, bytes, date, array, dictionary, reference

    /// Scalars are the types that have no "absent" state of their own: setting nil on a key that holds
    /// (or is declared as) a scalar calls the kind's nil-for-scalar hook.
    public var isScalar: Bool {
        switch self {
        case .bool, .int, .double, .date: true
        default: false
        }
    }

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

    public var boolValue: Bool? {
        if case .bool(let v) = self { return v }
        return nil
    }

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

    public var stringValue: String? {
        if case .string(let v) = self { return v }
        return nil
    }

    public var bytesValue: Data? {
        if case .bytes(let v) = self { return v }
        return nil
    }

    public var dateValue: Date? {
        if case .date(let v) = self { return v }
        return nil
    }

    public var arrayValue: [Value]? {
        if case .array(let v) = self { return v }
        return nil
    }

    public var dictionaryValue: [String: Value]? {
        if case .dictionary(let v) = self { return v }
        return nil
    }

    public var referenceValue: RecordRef? {
        if case .reference(let v) = self { return v }
        return nil
    }
}

extension Value: Equatable {
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
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension Value: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension Value: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension Value: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension Value: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: Value...) { self = .array(elements) }
}

extension Value: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, Value)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
