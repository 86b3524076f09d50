extension IndexEntryLayout {
    /// An entry read in place: checked as ``IndexEntryLayout/decode(key:value:prefixLength:)``
    /// checks it, its records' ids given as the bytes of the key or the value — not copied, not
    /// made `String`s (an index scan hands them to the query as they are). Valid while `key` and
    /// `value` are.
    struct View {
        let key: UnsafeRawBufferPointer
        let value: UnsafeRawBufferPointer
        let prefixLength: Int
        /// The tuple's length in the key.
        let tupleLength: Int
        let flags: IndexEntryFlags
        /// How many records the entry holds.
        private(set) var count = 1

        /// The entry `key` → `value`; nil when it is malformed: a value shorter than its two
        /// header bytes, unknown flags, a tuple longer than ``IndexKeyEncoding/maximumTupleLength``
        /// or than the key; in the short form, bytes after the header or an id that is not UTF-8;
        /// with ``IndexEntryFlags/idList``, a list that is empty, ends inside an item, or holds an
        /// element flag above 1 or an id that is not UTF-8.
        init?(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, prefixLength: Int) {
            guard value.count >= 2 else { return nil }
            let flags = IndexEntryFlags(rawValue: value[0]), tupleLength = Int(value[1])
            guard flags.isSubset(of: .all), tupleLength <= IndexKeyEncoding.maximumTupleLength,
                  prefixLength + tupleLength <= key.count else { return nil }
            (self.key, self.value, self.prefixLength, self.tupleLength, self.flags) = (key, value, prefixLength, tupleLength, flags)
            if flags.contains(.idList) {
                var items = 0
                guard Self.walkList(value, { id, _ in
                    items += 1
                    return UTF8Text.isValid(id.bindMemoryAssumingUInt8())
                }), items > 0 else { return nil }
                count = items
            } else {
                guard value.count == 2, UTF8Text.isValid(shortID.bindMemoryAssumingUInt8()) else { return nil }
            }
        }

        /// The tuple, as the key holds it.
        var tuple: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: key[prefixLength ..< prefixLength + tupleLength]) }

        /// The key's tail after the tuple: the whole id in the short form.
        private var shortID: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: key[(prefixLength + tupleLength)...]) }

        /// Calls `body` with each record's id and whether its tuple comes from an array's element,
        /// in id order, until it returns false; returns whether it never did.
        func forEachID(_ body: (UnsafeRawBufferPointer, Bool) throws -> Bool) rethrows -> Bool {
            guard flags.contains(.idList) else { return try body(shortID, flags.contains(.element)) }
            return try Self.walkList(value, body)
        }

        /// ``forEachID(_:)`` for a `body` that may write in the transaction, which can move or
        /// rewrite the entry in its page: an id list is walked in a copy of the value (the short
        /// form's one id is read by `body` before it writes, and nothing is read after).
        func forEachIDAllowingWrites(_ body: (UnsafeRawBufferPointer, Bool) throws -> Bool) rethrows -> Bool {
            guard flags.contains(.idList) else { return try forEachID(body) }
            return try Array(value).withUnsafeBytes { try Self.walkList($0, body) }
        }

        /// The entry decoded: its ids made `String`s.
        var stored: Stored {
            var items: [Item] = []
            _ = forEachID { id, isElement in
                items.append(Item(id: String(decoding: id, as: UTF8.self), isElement: isElement))
                return true
            }
            return Stored(tupleLength: tupleLength, flags: flags, items: items)
        }

        /// Walks an id list (after the two header bytes), each item an element flag byte (0 or 1),
        /// a `UInt16 LE` length and the id; false when `body` stops or the list is malformed.
        private static func walkList(_ value: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Bool) throws -> Bool) rethrows -> Bool {
            var offset = 2
            while offset < value.count {
                guard offset + 3 <= value.count, value[offset] <= 1 else { return false }
                let length = Int(value[offset + 1]) | Int(value[offset + 2]) << 8
                guard offset + 3 + length <= value.count,
                      try body(UnsafeRawBufferPointer(rebasing: value[(offset + 3) ..< (offset + 3 + length)]), value[offset] == 1) else { return false }
                offset += 3 + length
            }
            return true
        }
    }
}
