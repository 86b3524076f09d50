import KVStore
import KVStoreSync

extension StatReport {
    /// A store's sync status (only for a store that syncs).
    static func sync(_ status: SyncStatus) -> Section {
        let kinds = status.kinds.map { Value.array($0.sorted().map(Value.string)) } ?? .string("all")
        return Section(key: "sync", json: .dictionary([
            "kinds": kinds, "hub": status.hub.map(Value.string) ?? .null,
            "uploadedThrough": .int(Int64(status.uploadedThrough)), "pendingUploads": .int(Int64(status.pendingUploads)),
            "download": .string(status.downloadCursor),
            "clockOffsetMilliseconds": status.clockOffsetMilliseconds.map(Value.int) ?? .null, "clockClamped": .bool(status.clockClamped),
        ]), rows: status.rows)
    }
}
