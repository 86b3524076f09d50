/// Decoding a stored reference without building its text first.
extension RecordRef {
    /// The reference `bytes` spell as `kind/id` when they are printable ASCII (`0x20`–`0x7E`) and
    /// make a valid reference: what ``init(_:)`` makes of their text (an ASCII id is in NFC and
    /// holds no control character), without making that text; nil for anything else, which the
    /// caller reads through ``init(_:)`` and its errors.
    init?(printableASCII bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= Self.maxKeyLength, let slash = bytes.firstIndex(of: UInt8(ascii: "/")),
              slash > 0, slash <= Self.maxKindLength, slash + 1 < bytes.count else { return nil }
        for offset in 0 ..< slash where !Self.isKindByte(bytes[offset], at: offset) { return nil }
        for byte in bytes[(slash + 1)...] where byte < 0x20 || byte > 0x7E { return nil }
        let text = bytes.bindMemoryAssumingUInt8()
        self.init(storedKind: UTF8Text.ascii(UnsafeBufferPointer(rebasing: text[..<slash])),
                  id: UTF8Text.ascii(UnsafeBufferPointer(rebasing: text[(slash + 1)...])))
    }
}
