/// Record keys met by a scan of one kind, read without checking again what every writer checked.
extension StoreLayout {
    /// Whether `key`, a key of the records database whose kind prefix ends at `idStart`, names a
    /// reference ``ref(fromKey:)`` makes: decided from its bytes when the id is printable ASCII
    /// (non-empty, no control character), by ``ref(fromKey:)`` otherwise.
    @inline(__always)
    static func isRecordKey(_ key: UnsafeRawBufferPointer, idFrom idStart: Int) -> Bool {
        hasPrintableASCIIID(key, idFrom: idStart) || ref(fromKey: key) != nil
    }

    /// ``ref(fromKey:)`` of a key of `kind` (already checked, its prefix ending at `idStart`): a
    /// printable ASCII id, which is valid and in NFC, is taken as it is; any other id goes
    /// through ``ref(fromKey:)`` and its checks.
    @inline(__always)
    static func ref(fromKey key: UnsafeRawBufferPointer, kind: String, idFrom idStart: Int) -> RecordRef? {
        guard hasPrintableASCIIID(key, idFrom: idStart) else { return ref(fromKey: key) }
        let id = UnsafeBufferPointer(rebasing: key.bindMemoryAssumingUInt8()[idStart...])
        return RecordRef(storedKind: kind, id: UTF8Text.ascii(id))
    }

    /// Whether the bytes from `idStart` are a non-empty run of printable ASCII (`0x20`–`0x7E`).
    @inline(__always)
    private static func hasPrintableASCIIID(_ key: UnsafeRawBufferPointer, idFrom idStart: Int) -> Bool {
        guard idStart < key.count else { return false }
        for byte in key[idStart...] where byte < 0x20 || byte > 0x7E { return false }
        return true
    }
}
