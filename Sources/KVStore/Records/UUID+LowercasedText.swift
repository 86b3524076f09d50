import Foundation

extension UUID {
    /// Whether this id's 16 bytes come before `other`'s, compared as unsigned bytes: how stamps
    /// of two stores at the same time are ordered, the same on every store.
    func bytesPrecede(_ other: UUID) -> Bool {
        withUnsafeBytes(of: uuid) { l in withUnsafeBytes(of: other.uuid) { r in l.lexicographicallyPrecedes(r) } }
    }

    /// The UUID as lowercase text (`8-4-4-4-12` hex digits), as store ids are written in the
    /// journal, in meta keys and in messages; built directly from the bytes (Foundation's
    /// `uuidString` formats through `snprintf`, which costs more than applying a journal entry's
    /// change where origins are written for every entry).
    var lowercasedText: String {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { buffer in
                digits.withUTF8Buffer { hex in
                    var index = 0
                    for (position, byte) in bytes.enumerated() {
                        if position == 4 || position == 6 || position == 8 || position == 10 {
                            buffer[index] = UInt8(ascii: "-")
                            index += 1
                        }
                        buffer[index] = hex[Int(byte >> 4)]
                        buffer[index + 1] = hex[Int(byte & 0x0F)]
                        index += 2
                    }
                }
                return 36
            }
        }
    }
}
