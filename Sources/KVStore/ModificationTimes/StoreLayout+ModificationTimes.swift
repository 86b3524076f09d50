import Foundation

/// Where modification times are kept: in `meta`, under `stamps/` followed by the record's key
/// (`kind` 0x00 `id`), one entry per record of a kind that tracks them
/// (``Kind/tracksModificationTimes``). The value is a ``RecordCodec`` dictionary from each key to
/// `[date, origin]` (the origin store's id as a lowercase UUID string); a key the record does not
/// hold is a tombstone. The entry is written in the same transaction as the change and removed
/// with the record; stores without any open as before.
extension StoreLayout.MetaKey {
    static let stampsPrefix = Array("stamps/".utf8)

    static func stamps(_ ref: RecordRef) -> [UInt8] { stampsPrefix + StoreLayout.recordKey(ref) }
}

/// The stored form of a record's stamps.
enum StampCodec {
    static func encode(_ stamps: [String: KeyStamp]) -> [UInt8] {
        RecordCodec.encode(stamps.mapValues { .array([.date($0.time), .string($0.origin.uuidString.lowercased())]) })
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> [String: KeyStamp]? {
        guard let values = try? RecordCodec.decode(bytes) else { return nil }
        var stamps: [String: KeyStamp] = [:]
        for (key, value) in values {
            guard case .array(let parts) = value, parts.count == 2, case .date(let time) = parts[0],
                  case .string(let text) = parts[1], let origin = UUID(uuidString: text) else { return nil }
            stamps[key] = KeyStamp(time: time, origin: origin)
        }
        return stamps
    }
}
