import Foundation

/// Where a store's sync with its hub stands: meta `sync/cursors` (``StoreLayout/MetaKey/syncCursors``),
/// written by the sync client (KVStoreSync) in the same write transaction as what it did — the
/// downloader applies a batch (``WriteTransaction/applyRemote(_:hubNow:)``) and stores the
/// download cursor in one transaction, so a batch is applied exactly once whatever is killed.
///
/// ```swift
/// try store.write { txn in
///     let report = try txn.applyRemote(batch, hubNow: hubNow)
///     try txn.setSyncCursors(SyncCursors(hub: hubID, uploadedThrough: uploaded, download: next, hubOffsetMilliseconds: offset))
/// }
/// ```
package struct SyncCursors: Sendable, Equatable {
    /// The hub's identity, chosen by the sync client: cursors of another hub are not reused.
    package var hub: String
    /// The last local journal sequence the hub has committed (0: none).
    package var uploadedThrough: UInt64
    /// Where downloading resumes: opaque to the store.
    package var download: [UInt8]
    /// The hub's clock minus this machine's, in milliseconds, measured at the last sync; nil
    /// until measured. When this machine's clock is ahead of the hub's by more than
    /// ``WriteTransaction/clockTolerance``, the store's clock uses the hub's time instead
    /// (``ReadTransaction/clockIsClamped()``).
    package var hubOffsetMilliseconds: Int64?

    package init(hub: String, uploadedThrough: UInt64, download: [UInt8], hubOffsetMilliseconds: Int64? = nil) {
        self.hub = hub
        self.uploadedThrough = uploadedThrough
        self.download = download
        self.hubOffsetMilliseconds = hubOffsetMilliseconds
    }

    /// The stored form's format byte; a newer one is refused.
    static let format: UInt8 = 1

    /// One format byte, then a ``RecordCodec`` dictionary: `hub` (string), `uploadedThrough`
    /// (int), `download` (bytes) and `hubOffset` (int, absent when not measured).
    var encoded: [UInt8] {
        var values: [String: Value] = [
            "hub": .string(hub), "uploadedThrough": .int(Int64(bitPattern: uploadedThrough)), "download": .bytes(Data(download)),
        ]
        if let hubOffsetMilliseconds { values["hubOffset"] = .int(hubOffsetMilliseconds) }
        return [Self.format] + RecordCodec.encode(values)
    }

    /// Reads ``encoded``'s form.
    /// - Throws: ``StoreError/Code/newerFormat`` for a newer format, ``StoreError/Code/corrupt``
    ///   for anything else that is not that form.
    init(encoded bytes: UnsafeRawBufferPointer, path: String) throws(StoreError) {
        func corrupt(_ problem: String) -> StoreError { StoreError(.corrupt, "the sync cursors in meta are corrupt: \(problem)", path: path) }
        guard let format = bytes.first else { throw corrupt("they are empty") }
        guard format <= Self.format else {
            throw StoreError(.newerFormat, "the sync cursors have format \(format), newer than this kvstore reads (\(Self.format)); use a newer kvstore", path: path)
        }
        let values: [String: Value]
        do { values = try RecordCodec.decode(UnsafeRawBufferPointer(rebasing: bytes.dropFirst())) } catch { throw corrupt("\(error)") }
        let unknown = Set(values.keys).subtracting(["hub", "uploadedThrough", "download", "hubOffset"])
        guard unknown.isEmpty else { throw corrupt("unknown fields \(unknown.sorted().joined(separator: ", "))") }
        guard case .string(let hub)? = values["hub"], case .int(let uploaded)? = values["uploadedThrough"], uploaded >= 0,
              case .bytes(let download)? = values["download"] else {
            throw corrupt("hub, uploadedThrough or download is missing or of another type")
        }
        var offset: Int64?
        switch values["hubOffset"] {
        case nil: offset = nil
        case .int(let value)?: offset = value
        default: throw corrupt("hubOffset is not an int")
        }
        self.init(hub: hub, uploadedThrough: UInt64(uploaded), download: Array(download), hubOffsetMilliseconds: offset)
    }
}
