/// The insert path's fastest case: a plain record (``RecordCodec/encodePlain(_:checkingNesting:)``)
/// whose top-level values are all booleans, ints, doubles, dates or strings. Each value is
/// resolved in the one pass into what its tagged form needs (a tag, the bits of a number, a
/// string), so the write does not copy a `Value` out of its slot, switch on it and destroy it
/// again; with up to 16 entries the slots fit in stack memory.
extension RecordCodec {
    /// ``encode(_:)`` of `values` when it is plain and holds only scalars (no null, bytes,
    /// reference, array or dictionary); nil otherwise, for ``encodePlain(_:checkingNesting:)``'s
    /// general pass.
    static func encodeScalars(_ values: [String: Value]) -> [UInt8]? {
        let count = values.count
        return withUnsafeTemporaryAllocation(of: ScalarEntry.self, capacity: count) { entries -> [UInt8]? in
            guard count > 0, let base = entries.baseAddress else { return nil }
            var filled = 0
            defer { base.deinitialize(count: filled) }
            var total = 1 + ValueCodec.varintSize(UInt64(count)) + (count + 1) * 4
            for (key, value) in values {
                guard let (high, low, keyLength) = key.utf8.withContiguousStorageIfAvailable(Self.plainKey) ?? nil,
                      let entry = ScalarEntry(high: high, low: low, keyLength: keyLength, key: key, value: value)
                else { return nil }
                total += ValueCodec.varintSize(UInt64(keyLength)) + keyLength + entry.valueSize
                (base + filled).initialize(to: consume entry)
                filled += 1
            }
            return writeSorted(base, count: count, size: total) { $0.pointee.writeValue(to: &$1) }
        }
    }

    /// A top-level entry of a scalar record: its key packed as ``encodePlain(_:checkingNesting:)``
    /// packs it, and its value as its tag and what follows the tag (64 bytes a slot).
    struct ScalarEntry: PackedKeyEntry {
        let high: UInt64
        let low: UInt64
        /// An int's zigzag form, a double's or a date's bit pattern, a string's UTF-8 length.
        let bits: UInt64
        let length: Int32
        let tag: UInt8
        let key: String
        /// A string value (empty for the other tags).
        let text: String

        var keyLength: Int { Int(length) }

        init?(high: UInt64, low: UInt64, keyLength: Int, key: String, value: Value) {
            guard let length = Int32(exactly: keyLength) else { return nil }
            switch value {
            case .bool(let flag): (tag, bits, text) = (flag ? ValueCodec.Tag.true : ValueCodec.Tag.false, 0, "")
            case .int(let int): (tag, bits, text) = (ValueCodec.Tag.int, ValueCodec.zigZag(int), "")
            case .double(let double): (tag, bits, text) = (ValueCodec.Tag.double, double.bitPattern, "")
            case .date(let date): (tag, bits, text) = (ValueCodec.Tag.date, date.timeIntervalSinceReferenceDate.bitPattern, "")
            case .string(let string): (tag, bits, text) = (ValueCodec.Tag.string, UInt64(string.utf8.count), string)
            case .null, .bytes, .array, .dictionary, .reference: return nil
            }
            (self.high, self.low, self.length, self.key) = (high, low, length, key)
        }

        /// The bytes of the tagged value (``ValueCodec/encodedSize(of:)``).
        var valueSize: Int {
            switch tag {
            case ValueCodec.Tag.int: 1 + ValueCodec.varintSize(bits)
            case ValueCodec.Tag.double, ValueCodec.Tag.date: 9
            case ValueCodec.Tag.string: 1 + ValueCodec.varintSize(bits) + Int(bits)
            default: 1
            }
        }

        /// Writes the tagged value (``ByteWriter/tagged(_:)``'s bytes).
        func writeValue(to writer: inout ByteWriter) {
            writer.byte(tag)
            switch tag {
            case ValueCodec.Tag.int: writer.varint(bits)
            case ValueCodec.Tag.double, ValueCodec.Tag.date: writer.uint64(bits)
            case ValueCodec.Tag.string:
                writer.varint(bits)
                writer.utf8(text)
            default: break
            }
        }
    }
}
