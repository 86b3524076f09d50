import Foundation

/// Encodes any `Encodable` value as a ``Value``: what the typed API stores for a model.
///
/// Mapping: `String`, `Bool` → string, bool; every integer type → int (a `UInt64` or `UInt` past
/// `Int64.max` is a ``ModelError/Code/valueOutOfRange`` error); `Double`, `Float` → double;
/// `Date` → date; `Data` → bytes; `URL` → its absolute string; `UUID` → its lowercase string;
/// `Decimal` → its exact decimal text (`"12.345"`; a double would round it);
/// ``RecordRef`` → reference; structs and classes → dictionaries; arrays → arrays; sets → arrays
/// in one order (strings by UTF-8 bytes, numbers by value), so that equal sets are equal values; enums
/// with raw values → their raw value. An optional that is nil leaves its key out (the synthesized
/// `Codable` code uses `encodeIfPresent`); inside an array it is `null`. As with `JSONEncoder`, a
/// nested optional's inner nil (`Int??.some(nil)`) is stored as nil and reads back as the outer nil.
///
/// ```swift
/// struct Address: Codable { var city: String; var zip: String? }
/// let value = try ValueEncoder().encode(Address(city: "London", zip: nil))
/// // .dictionary(["city": "London"])
/// ```
public struct ValueEncoder: Sendable {
    /// An encoder.
    public init() {}

    /// The value of `value`.
    /// - Throws: ``ModelError`` naming the key path, or what the value's own `encode(to:)` throws.
    public func encode<T: Encodable>(_ value: T) throws -> Value {
        do {
            return try EncodingNode.box(value, path: []).resolved
        } catch let error as EncodingError {
            throw ModelError(error)
        }
    }

    /// The values of a record for `value`, which must encode as a dictionary; `null`s at the top
    /// level are left out (a record holds none).
    /// - Throws: ``ModelError/Code/notADictionary`` for a value that encodes as anything else.
    public func encodeRecord<T: Encodable>(_ value: T) throws -> [String: Value] {
        try encodeRecordWithKeys(value).values
    }

    /// ``encodeRecord(_:)``, with the keys the model has: those it encodes, and those it encodes
    /// as absent (a nil optional through `encodeIfPresent`, or an explicit `encodeNil`).
    func encodeRecordWithKeys<T: Encodable>(_ value: T) throws -> (values: [String: Value], keys: Set<String>) {
        let node = EncodingNode()
        let resolved: Value
        do {
            try value.encode(to: ValueEncoding(node: node, codingPath: []))
            resolved = node.resolved
        } catch let error as EncodingError {
            throw ModelError(error)
        }
        guard case .dictionary(let values) = resolved else {
            throw ModelError(code: .notADictionary, message: "\(T.self) does not encode as a dictionary of keys, so it cannot be a record")
        }
        return (values.filter { !$0.value.isNull }, Set(values.keys).union(node.absentKeys))
    }
}

/// A value being encoded: a single value, or keyed or unkeyed slots that nested containers keep
/// writing into until the encoding ends.
final class EncodingNode {
    enum Slot {
        case value(Value)
        case node(EncodingNode)

        var resolved: Value {
            switch self {
            case .value(let value): value
            case .node(let node): node.resolved
            }
        }
    }

    enum Shape { case none, single, keyed, unkeyed }

    var shape = Shape.none
    var single = Value.null
    var keyed: [String: Slot] = [:]
    var unkeyed: [Slot] = []
    /// The keys given a nil optional through `encodeIfPresent`: keys the value has, now absent.
    var absentKeys: Set<String> = []

    var resolved: Value {
        switch shape {
        case .none: .dictionary([:])
        case .single: single
        case .keyed: .dictionary(keyed.mapValues(\.resolved))
        case .unkeyed: .array(unkeyed.map(\.resolved))
        }
    }

    /// The slot for `value`: the store's own types directly, anything else through its `encode(to:)`.
    static func box<T: Encodable>(_ value: T, path: @autoclosure () -> [any CodingKey]) throws -> Slot {
        // Metatype comparisons: much cheaper than dynamic casts that fail for every other type.
        if T.self == Date.self { return .value(.date(value as! Date)) }
        if T.self == Data.self { return .value(.bytes(value as! Data)) }
        if T.self == URL.self { return .value(.string((value as! URL).absoluteString)) }
        if T.self == UUID.self { return .value(.string((value as! UUID).uuidString.lowercased())) }
        if T.self == Decimal.self { return .value(.string((value as! Decimal).description)) }
        if T.self == RecordRef.self { return .value(.reference(value as! RecordRef)) }
        if let collection = value as? any UnorderedElements, let elements = try collection.encodedElements(path: path()) {
            return .value(.array(elements))
        }
        let node = EncodingNode()
        try value.encode(to: ValueEncoding(node: node, codingPath: path()))
        return node.shape == .single ? .value(node.single) : .node(node)
    }

    static func int<I: FixedWidthInteger>(_ value: I, path: @autoclosure () -> [any CodingKey]) throws -> Value {
        guard let int = Int64(exactly: value) else {
            throw ModelError(
                code: .valueOutOfRange, message: "\(value) does not fit in a stored int (Int64)",
                keyPath: CodingPathText.text(path()))
        }
        return .int(int)
    }
}

struct ValueEncoding: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.shape != .keyed { node.shape = .keyed; node.keyed = [:] }
        return KeyedEncodingContainer(KeyedValueEncoding<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.shape != .unkeyed { node.shape = .unkeyed; node.unkeyed = [] }
        return UnkeyedValueEncoding(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueEncoding(node: node, codingPath: codingPath)
    }
}
