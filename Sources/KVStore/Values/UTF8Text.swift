/// Strings from UTF-8 bytes that must be valid.
enum UTF8Text {
    /// The string the bytes spell, or nil when they are not valid UTF-8. ASCII (the common case
    /// for keys and most text) skips the general validator.
    @inline(__always)
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var ascii = true
        for byte in bytes where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Orders strings by their UTF-8 bytes (the order of keys in an encoded dictionary).
    @inline(__always)
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        let order = lhs.utf8.withContiguousStorageIfAvailable { l in
            rhs.utf8.withContiguousStorageIfAvailable { r in
                RecordCodec.compare(UnsafeRawBufferPointer(l), UnsafeRawBufferPointer(r))
            }
        }
        if let order = order ?? nil { return order < 0 }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8)  // a bridged string without contiguous UTF-8
    }

    /// The dictionary's indices in UTF-8 byte order of their keys (the order of an encoded
    /// dictionary and of typed JSON output). Keys are compared by their first 16 bytes packed into
    /// integers, and in full only when those tie; entries are not copied.
    static func sortedIndices(_ dictionary: [String: Value]) -> [Dictionary<String, Value>.Index] {
        var order: [SortKey] = []
        order.reserveCapacity(dictionary.count)
        var index = dictionary.startIndex
        while index != dictionary.endIndex {
            let (high, low) = prefix(dictionary[index].key)
            order.append(SortKey(high: high, low: low, index: index))
            dictionary.formIndex(after: &index)
        }
        order.sort { a, b in
            if a.high != b.high { return a.high < b.high }
            if a.low != b.low { return a.low < b.low }
            return precedes(dictionary[a.index].key, dictionary[b.index].key)
        }
        return order.map(\.index)
    }

    /// A key's first 16 bytes and where it is: cheap to move and compare while sorting.
    private struct SortKey {
        let high: UInt64
        let low: UInt64
        let index: Dictionary<String, Value>.Index
    }

    /// The first 16 UTF-8 bytes of `key`, big-endian in two integers, zero-padded.
    private static func prefix(_ key: String) -> (UInt64, UInt64) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var index = 0
        for byte in key.utf8 {
            if index < 8 {
                high |= UInt64(byte) << (56 - 8 * index)
            } else if index < 16 {
                low |= UInt64(byte) << (56 - 8 * (index - 8))
            } else {
                break
            }
            index += 1
        }
        return (high, low)
    }
}

extension UTF8Text {
    /// Whether the bytes are valid UTF-8, without making a string of ASCII.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 {
            return String(validating: bytes, as: UTF8.self) != nil
        }
        return true
    }
}
