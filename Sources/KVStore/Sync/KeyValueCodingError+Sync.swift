/// The errors of keeping records' sync state.
extension KeyValueCodingError {
    /// A top-level key of a record of a kind that syncs whose sync state cannot be kept: its
    /// entry's key in the `sync` database (`kind` 0x00 `id` 0x00 `key`) would be longer than LMDB
    /// takes (``SyncStateStorage/maxKeyLength``).
    static func syncKeyTooLong(_ key: String, ref: RecordRef) -> Self {
        Self(
            code: .tooLarge,
            message: "cannot keep the sync state of key '\(KeyValuePath.quotedStart(of: key))': kind, id and key together take more than \(SyncStateStorage.maxKeyLength - 2) bytes; use a shorter key or id",
            keyPath: key, ref: ref)
    }
}
