import Foundation

/// The one rule for names: keys (at every level of a record), key paths and record ids are stored
/// and compared in Unicode Normalization Form C.
///
/// Swift compares strings by canonical equivalence, so `"caf\u{E9}"` and `"cafe\u{301}"` are the
/// same dictionary key, while their UTF-8 bytes (what LMDB and the encoded records compare) differ.
/// Putting every name in NFC where it enters the store makes the two views agree: one spelling is
/// stored, and either spelling finds it. ASCII text is already in NFC and costs one byte scan.
extension UTF8Text {
    /// `text` in Normalization Form C (itself when it already is).
    @inline(__always)
    static func nfc(_ text: String) -> String {
        isASCII(text) ? text : composed(text)
    }

    /// True when every byte of `text` is ASCII.
    @inline(__always)
    static func isASCII(_ text: String) -> Bool {
        if let ascii = text.utf8.withContiguousStorageIfAvailable({ bytes -> Bool in
            for byte in bytes where byte >= 0x80 { return false }
            return true
        }) {
            return ascii
        }
        return !text.utf8.contains(where: { $0 >= 0x80 })
    }

    /// True when `dictionary` has a key that NFC would change (at this level only).
    static func hasUncomposedKey(_ dictionary: [String: Value]) -> Bool {
        dictionary.keys.contains { !isASCII($0) && !composed($0).utf8.elementsEqual($0.utf8) }
    }

    /// `dictionary` with its keys in NFC (at this level only). Keys that differ only in
    /// normalization are equal `String`s, so a dictionary never holds two of them.
    static func composingKeys(_ dictionary: [String: Value]) -> [String: Value] {
        guard hasUncomposedKey(dictionary) else { return dictionary }
        var composedKeys: [String: Value] = [:]
        composedKeys.reserveCapacity(dictionary.count)
        for (key, value) in dictionary { composedKeys[nfc(key)] = value }
        return composedKeys
    }

    @inline(never)
    private static func composed(_ text: String) -> String {
        let result = text.precomposedStringWithCanonicalMapping
        // Keep the original when nothing changed (no copy of the bytes kept alive twice).
        return result.utf8.elementsEqual(text.utf8) ? text : result
    }
}
