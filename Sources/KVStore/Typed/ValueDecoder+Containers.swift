/// The keyed, unkeyed and single-value containers of ``ValueDecoder``.
struct KeyedValueDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let dictionary: [String: Value]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { dictionary.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { dictionary[key.stringValue] != nil }

    /// A missing key and an explicit `null` both read as nil.
    func decodeNil(forKey key: Key) throws -> Bool {
        dictionary[key.stringValue]?.isNull ?? true
    }

    private func value<T>(_ key: Key, as type: T.Type) throws -> Value {
        guard let value = dictionary[key.stringValue] else {
            throw ValueUnboxing.mismatch(type, nil, codingPath + [key])
        }
        return value
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try ValueUnboxing.bool(value(key, as: type), codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try ValueUnboxing.string(value(key, as: type), codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try ValueUnboxing.double(value(key, as: type), codingPath + [key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try ValueUnboxing.float(value(key, as: type), codingPath + [key]) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try ValueUnboxing.integer(value(key, as: type), codingPath + [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try ValueUnboxing.integer(value(key, as: type), codingPath + [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try ValueUnboxing.integer(value(key, as: type), codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try ValueUnboxing.integer(value(key, as: type), codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try ValueUnboxing.integer(value(key, as: type), codingPath + [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try ValueUnboxing.integer(value(key, as: type), codingPath + [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try ValueUnboxing.integer(value(key, as: type), codingPath + [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try ValueUnboxing.integer(value(key, as: type), codingPath + [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try ValueUnboxing.integer(value(key, as: type), codingPath + [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try ValueUnboxing.integer(value(key, as: type), codingPath + [key]) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try ValueUnboxing.unbox(value(key, as: type), as: type, path: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoding(value: value(key, as: [String: Value].self), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoding(value: value(key, as: [Value].self), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoding(value: dictionary[SuperKey().stringValue] ?? .null, codingPath: codingPath + [SuperKey()])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoding(value: dictionary[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

struct UnkeyedValueDecoding: UnkeyedDecodingContainer {
    let elements: [Value]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [Value], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The next element, moving past it.
    private mutating func next<T>(as type: T.Type) throws -> Value {
        guard !isAtEnd else { throw ValueUnboxing.mismatch(type, nil, codingPath + [IndexKey(currentIndex)]) }
        defer { currentIndex += 1 }
        return elements[currentIndex]
    }

    /// The path of the element ``next(as:)`` returned last.
    private var path: [any CodingKey] { codingPath + [IndexKey(currentIndex - 1)] }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try ValueUnboxing.bool(next(as: type), path) }
    mutating func decode(_ type: String.Type) throws -> String { try ValueUnboxing.string(next(as: type), path) }
    mutating func decode(_ type: Double.Type) throws -> Double { try ValueUnboxing.double(next(as: type), path) }
    mutating func decode(_ type: Float.Type) throws -> Float { try ValueUnboxing.float(next(as: type), path) }
    mutating func decode(_ type: Int.Type) throws -> Int { try ValueUnboxing.integer(next(as: type), path) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try ValueUnboxing.integer(next(as: type), path) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try ValueUnboxing.integer(next(as: type), path) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try ValueUnboxing.integer(next(as: type), path) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try ValueUnboxing.integer(next(as: type), path) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try ValueUnboxing.integer(next(as: type), path) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try ValueUnboxing.integer(next(as: type), path) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try ValueUnboxing.integer(next(as: type), path) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try ValueUnboxing.integer(next(as: type), path) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try ValueUnboxing.integer(next(as: type), path) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try next(as: type)
        return try ValueUnboxing.unbox(value, as: type, path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try next(as: [String: Value].self)
        return try ValueDecoding(value: value, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let value = try next(as: [Value].self)
        return try ValueDecoding(value: value, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let value = try next(as: Value.self)
        return ValueDecoding(value: value, codingPath: path)
    }
}

struct SingleValueDecoding: SingleValueDecodingContainer {
    let value: Value
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try ValueUnboxing.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try ValueUnboxing.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try ValueUnboxing.double(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try ValueUnboxing.float(value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try ValueUnboxing.integer(value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try ValueUnboxing.integer(value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try ValueUnboxing.integer(value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try ValueUnboxing.integer(value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try ValueUnboxing.integer(value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try ValueUnboxing.integer(value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try ValueUnboxing.integer(value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try ValueUnboxing.integer(value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try ValueUnboxing.integer(value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try ValueUnboxing.integer(value, codingPath) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try ValueUnboxing.unbox(value, as: type, path: codingPath)
    }
}
