extension KeyDirectory {
    /// A reader of entry `index`'s value (inside the record, depth 1) when the entry's key is
    /// byte for byte `key`; nil when it is not, or when the entry's offsets or key do not fit.
    ///
    /// It checks what ``entryReader(_:depth:)`` and reading the key check (offsets in order and
    /// within the entries, the key's length and bytes within the entry), with no error made: a
    /// nil sends the record to the full decoder, which gives the error.
    @inline(__always)
    func valueReader(_ index: Int, ifKeyIs key: UnsafeRawBufferPointer) -> ByteReader? {
        guard index >= 0, index < count else { return nil }
        // The table is in the buffer (checked by `init`), and offsets are 32-bit: no overflow.
        let position = tableStart &+ index &* 4
        let start = entriesStart &+ Self.load(buffer, at: position)
        let end = entriesStart &+ Self.load(buffer, at: position &+ 4)
        guard start < end, end <= entriesEnd else { return nil }
        var reader = ByteReader(buffer, offset: start, end: end, depth: 1)
        guard let length = try? reader.readLength("dictionary key"), length == key.count,
              let bytes = try? reader.readBytes(length, "dictionary key"),
              Self.equal(bytes, key) else { return nil }
        return reader
    }

    /// Whether two byte runs of the same length are equal: eight bytes at a time, keys being short.
    @inline(__always)
    private static func equal(_ bytes: UnsafeRawBufferPointer, _ known: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, let other = known.baseAddress else { return true }
        var offset = 0
        while offset &+ 8 <= bytes.count {
            guard base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                == other.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
            offset &+= 8
        }
        while offset < bytes.count {
            guard base.load(fromByteOffset: offset, as: UInt8.self) == other.load(fromByteOffset: offset, as: UInt8.self) else { return false }
            offset &+= 1
        }
        return true
    }
}
