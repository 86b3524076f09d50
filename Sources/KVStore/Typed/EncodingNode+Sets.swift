/// A set's elements, encoded in one order: a `Set` iterates in an order that changes from process
/// to process (and with its capacity), so encoding it as it iterates would make equal sets
/// different values — and `save` of an unchanged model would write and journal a change.
protocol UnorderedElements {
    func encodedElements(path: [any CodingKey]) throws -> [Value]
}

extension Set: UnorderedElements where Element: Encodable {
    func encodedElements(path: [any CodingKey]) throws -> [Value] {
        var elements: [Value] = []
        elements.reserveCapacity(count)
        for element in self { elements.append(try EncodingNode.box(element, path: path + [IndexKey(elements.count)]).resolved) }
        return elements.sorted(by: EncodingNode.precedesInSetOrder)
    }
}

extension EncodingNode {
    /// The order of a set's elements: strings by their UTF-8 bytes, numbers and dates by value
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
