/// Collections whose iteration order is not part of their value: a `Set`, and a `Dictionary`
/// whose keys are not strings or ints (`Codable` writes it as key, value, key, value… as it
/// iterates). Their order changes from process to process (and with their capacity), so encoding
/// them as they iterate would make equal collections different values — and `save` of an
/// unchanged model would write and journal a change. They are encoded in one order instead.
protocol UnorderedElements {
    /// The encoded elements in their one order, or nil to encode the collection as usual.
    func encodedElements(path: [any CodingKey]) throws -> [Value]?
}

extension Set: UnorderedElements where Element: Encodable {
    func encodedElements(path: [any CodingKey]) throws -> [Value]? {
        var elements: [Value] = []
        elements.reserveCapacity(count)
        for element in self { elements.append(try EncodingNode.box(element, path: path + [IndexKey(elements.count)]).resolved) }
        return elements.sorted(by: EncodingNode.precedesInSetOrder)
    }
}

extension Dictionary: UnorderedElements where Key: Encodable, Value: Encodable {
    func encodedElements(path: [any CodingKey]) throws -> [KVStore.Value]? {
        // String, Int and CodingKeyRepresentable keys encode as a dictionary, which has no order.
        if Key.self == String.self || Key.self == Int.self || Key.self is any CodingKeyRepresentable.Type { return nil }
        var pairs: [(key: KVStore.Value, value: KVStore.Value)] = []
        pairs.reserveCapacity(count)
        for (key, value) in self {
            let index = pairs.count * 2
            pairs.append((try EncodingNode.box(key, path: path + [IndexKey(index)]).resolved,
                          try EncodingNode.box(value, path: path + [IndexKey(index + 1)]).resolved))
        }
        return pairs.sorted { EncodingNode.precedesInSetOrder($0.key, $1.key) }.flatMap { [$0.key, $0.value] }
    }
}

extension EncodingNode {
    /// The order of a set's elements (and of such a dictionary's keys): strings by their UTF-8 bytes, numbers and dates by value
    /// (IEEE total order), anything else by its stored bytes.
    static func precedesInSetOrder(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.string(let a), .string(let b)): UTF8Text.precedes(a, b)
        case (.int(let a), .int(let b)): a < b
        case (.double(let a), .double(let b)): a.bitPattern != b.bitPattern && a.isTotallyOrdered(belowOrEqualTo: b)
        case (.date(let a), .date(let b)):
            precedesInSetOrder(.double(a.timeIntervalSinceReferenceDate), .double(b.timeIntervalSinceReferenceDate))
        default: ValueCodec.encode(a).lexicographicallyPrecedes(ValueCodec.encode(b))
        }
    }
}
