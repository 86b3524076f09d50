import Foundation

/// The stored form of a record's stamps, the value of a `stamps/` key in `meta`
/// (``StoreLayout/MetaKey/stampsPrefix``).
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
