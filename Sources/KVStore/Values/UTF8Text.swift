/// Strings from UTF-8 bytes that must be valid.
enum UTF8Text {
    /// The string the bytes spell, or nil when they are not valid UTF-8. ASCII (the common case
    /// for keys and most text) skips the general validator.
    @inline(__always)
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        isASCII(bytes) ? ascii(bytes) : String(validating: bytes, as: UTF8.self)
    }

    /// The string of bytes that are all ASCII (the caller checked). Up to 15 bytes it is a small
    /// string, which the standard library makes from ASCII without validating it again.
    @inline(__always)
    static func ascii(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.count <= 15 else { return String(decoding: bytes, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            guard let target = buffer.baseAddress, let source = bytes.baseAddress else { return 0 }
            target.initialize(from: source, count: bytes.count)
            return bytes.count
        }
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
    /// dictionary and of typed JSON output), as an array; see ``withSortedIndices(_:_:)``.
    static func sortedIndices(_ dictionary: [String: Value]) -> [Dictionary<String, Value>.Index] {
        withSortedIndices(dictionary) { order in order.map(\.index) }
    }

    /// Calls `body` with the dictionary's indices in UTF-8 byte order of their keys, in memory
    /// that lives only during the call (on the stack when small). Keys are compared by their first
    /// 16 bytes packed into two integers (read straight from contiguous UTF-8), and in full only
    /// when those tie, so the order is exactly that of ``precedes(_:_:)``; entries are not copied.
    static func withSortedIndices<R>(
        _ dictionary: [String: Value],
        _ body: (UnsafeMutableBufferPointer<SortKey>) -> R
    ) -> R {
        withUnsafeTemporaryAllocation(of: SortKey.self, capacity: dictionary.count) { order in
            var count = 0
            var index = dictionary.startIndex
            while index != dictionary.endIndex {
                let (high, low) = prefix(dictionary.keys[index])
                (order.baseAddress! + count).initialize(to: SortKey(high: high, low: low, index: index))
                count += 1
                dictionary.formIndex(after: &index)
            }
            let sorted = UnsafeMutableBufferPointer(rebasing: order[..<count])
            sort(sorted, keys: dictionary)
            defer { sorted.deinitialize() }
            return body(sorted)
        }
    }

    /// A key's first 16 bytes and where it is: cheap to move and compare while sorting.
    struct SortKey {
        let high: UInt64
        let low: UInt64
        let index: Dictionary<String, Value>.Index
    }

    /// Sorts by the packed prefixes, then by the whole keys: insertion sort for the small
    /// dictionaries records are, the standard library's sort beyond.
    private static func sort(_ order: UnsafeMutableBufferPointer<SortKey>, keys dictionary: [String: Value]) {
        @inline(__always)
        func precedes(_ a: SortKey, _ b: SortKey) -> Bool {
            if a.high != b.high { return a.high < b.high }
            if a.low != b.low { return a.low < b.low }
            return UTF8Text.precedes(dictionary.keys[a.index], dictionary.keys[b.index])
        }
        order.sortSmall(by: precedes)
    }

    /// The first 16 UTF-8 bytes of `key`, big-endian in two integers, zero-padded.
    @inline(__always)
    private static func prefix(_ key: String) -> (UInt64, UInt64) {
        if let packed = key.utf8.withContiguousStorageIfAvailable(packedPrefix) { return packed }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var index = 0
        for byte in key.utf8 {  // a bridged string without contiguous UTF-8
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

    @inline(__always)
    private static func packedPrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        var words: (UInt64, UInt64) = (0, 0)
        if let base = bytes.baseAddress {
            withUnsafeMutableBytes(of: &words) { $0.baseAddress!.copyMemory(from: base, byteCount: min(bytes.count, 16)) }
        }
        return (UInt64(bigEndian: words.0), UInt64(bigEndian: words.1))
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

extension UnsafeMutableBufferPointer {
    /// Sorts the elements: by insertion when there are 32 or fewer (the keys of a record), with
    /// the standard library's sort beyond.
    @inline(__always)
    func sortSmall(by precedes: (Element, Element) -> Bool) {
        guard count <= 32 else {
            var elements = self
            elements.sort(by: precedes)
            return
        }
        guard let base = baseAddress else { return }
        for next in 1 ..< Swift.max(count, 1) {
            let moving = base[next]
            var hole = next
            while hole > 0 && precedes(moving, base[hole - 1]) {
                base[hole] = base[hole - 1]
                hole -= 1
            }
            base[hole] = moving
        }
    }
}
