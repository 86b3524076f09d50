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

    /// True when every byte of `text` is ASCII (read from its contiguous UTF-8, eight bytes at a time).
    @inline(__always)
    static func isASCII(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable(isASCII) ?? !text.utf8.contains(where: { $0 >= 0x80 })
    }

    /// True when every byte is ASCII, eight bytes at a time.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 8 <= bytes.count {
            if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < bytes.count {
            if base[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }

    /// `dictionary` with every key in NFC at every level (itself when they all are). Keys that
    /// differ only in normalization are equal `String`s, so a dictionary never holds two of them.
    @inline(__always)
    static func composingKeys(_ dictionary: [String: Value]) -> [String: Value] {
        composedKeys(of: dictionary) ?? dictionary
    }

    /// `value` with every dictionary key in NFC (itself when they all are).
    @inline(__always)
    static func composingKeys(_ value: Value) -> Value {
        composedKeys(in: value) ?? value
    }

    /// The dictionary with its keys composed, or nil when nothing changes.
    private static func composedKeys(of dictionary: [String: Value]) -> [String: Value]? {
        var changed: [String: Value]?
        for (key, value) in dictionary {
            let newValue = composedKeys(in: value)
            let newKey = isASCII(key) ? nil : composedIfChanged(key)
            guard newKey != nil || newValue != nil else { continue }
            if changed == nil { changed = dictionary }
            changed!.removeValue(forKey: key)
            changed![newKey ?? key] = newValue ?? value
        }
        return changed
    }

    /// The value with its dictionaries' keys composed, or nil when nothing changes (scalars).
    private static func composedKeys(in value: Value) -> Value? {
        switch value {
        case .dictionary(let dictionary):
            return composedKeys(of: dictionary).map(Value.dictionary)
        case .array(let elements):
            var changed: [Value]?
            for (index, element) in elements.enumerated() {
                guard let new = composedKeys(in: element) else { continue }
                if changed == nil { changed = elements }
                changed![index] = new
            }
            return changed.map(Value.array)
        default:
            return nil
        }
    }

    /// `text` in NFC, or nil when it already is.
    @inline(never)
    private static func composedIfChanged(_ text: String) -> String? {
        let result = text.precomposedStringWithCanonicalMapping
        return result.utf8.elementsEqual(text.utf8) ? nil : result
    }

    @inline(never)
    private static func composed(_ text: String) -> String {
        composedIfChanged(text) ?? text
    }
}
