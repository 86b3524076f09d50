import Foundation

/// Ids the store generates for records inserted without one.
///
/// They are UUID version 7 strings in lowercase (`0193a0c4-7a1e-7c3b-9f2d-5b8e1c0d4a66`): unique
/// across stores (so replicated and merged records never collide) and, because they start with the
/// time in milliseconds, they sort in insertion order in a kind's id order.
enum RecordID {
    static func generate(now: Date = Date()) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for i in 0..<16 { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
        let millis = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: millis >> (8 * (5 - UInt64(i)))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // RFC 4122 variant
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString.lowercased()
    }
}
