import Foundation

/// The byte encoding of indexed values: the byte order of two encodings (`memcmp`) is the order
/// the predicate language compares the values in, so an index is an LMDB range of keys.
///
/// Each value is one *component*: a class byte, then a body whose length the class or a
/// terminator gives, so components concatenate into tuples (compound indexes) that order by their
/// first component, then their second… and no tuple's encoding is a prefix of another's.
///
/// | class byte | values | body |
/// |---|---|---|
/// | `05` | missing, `null` (one class: `== nil` holds for both; missing sorts first) | — |
/// | `06` | an empty array (a record's only entry for it) | — |
/// | `10`, `11` | `false`, `true` | — |
/// | `20`, `21`, `22` | negative numbers, zero, positive numbers — ints and doubles alike | see below |
/// | `23` | NaN (after every number: it orders with none, so no numeric range holds it) | — |
/// | `30` | strings, in NFC (or folded, in a folded index) | UTF-8, `00` escaped as `00 FF`, then `00 01` |
/// | `40`–`43` | dates, as numbers of seconds since 2001: before, at, after 2001, NaN | as numbers |
/// | `50` | bytes | escaped and terminated as strings |
/// | `60` | references | `kind/id` escaped and terminated as strings |
/// | `70` | an array inside a dictionary | its elements' components, then `00` |
/// | `78` | a dictionary | per key (in UTF-8 order): `01`, the key escaped, its value; then `00` |
/// | `FE` | the *unknown* bucket: a key path ran into a reference with keys left (see ``IndexEntries``) | — |
///
/// **Numbers** compare exactly: `2^53 + 1` as an int sorts after `2^53` as a double, and `5` and
/// `5.0` encode alike (they are equal). A nonzero finite number is its binary exponent `e`
/// (`2^e <= |x| < 2^(e+1)`) plus 1100 as a big-endian `UInt16`, then the bits after its leading 1
/// left-aligned in a big-endian `UInt64`: exact for every `Int64` (63 bits) and every double (52).
/// Infinity has exponent `FFFF`; a negative number's ten bytes are inverted. `-0.0` is zero.
///
/// **Strings** order by Unicode scalar (UTF-8 bytes), as the predicate language compares them
/// without a sort option; the escape keeps `"a"` before `"a\0"` before `"ab"`, and the
/// two-byte terminator keeps one string's encoding from being the start of another's (`""` is
/// `30 00 01`, `"\0"` is `30 00 FF 00 01`), so the keys that start with a value's encoding are
/// exactly that value's.
///
/// The empty-array class, bools, bytes, references, arrays and dictionaries are there for
/// equality (and so that every record has an entry in every index of its kind); their order
/// among themselves means nothing to a query.
enum IndexKeyEncoding {
    /// The class bytes.
    enum Class {
        static let missing: UInt8 = 0x05
        static let emptyArray: UInt8 = 0x06
        static let `false`: UInt8 = 0x10
        static let `true`: UInt8 = 0x11
        static let number: UInt8 = 0x20
        static let string: UInt8 = 0x30
        static let date: UInt8 = 0x40
        static let bytes: UInt8 = 0x50
        static let reference: UInt8 = 0x60
        static let array: UInt8 = 0x70
        static let dictionary: UInt8 = 0x78
        static let unknown: UInt8 = 0xFE

        /// Offsets from ``number`` and ``date``: the sign classes, and NaN after them.
        static let negative: UInt8 = 0, zero: UInt8 = 1, positive: UInt8 = 2, notANumber: UInt8 = 3
    }

    /// The longest encoded tuple kept whole; a longer one is cut to this length and its entry is
    /// marked inexact (``IndexEntryFlags/inexact``): the planner re-checks its record.
    static let maximumTupleLength = 240

    /// The terminator of arrays and dictionaries (whose parts start with a byte above it).
    static let terminator: UInt8 = 0x00
    /// The terminator of strings, bytes and references: `00` then `01`, which no escape makes.
    static let textTerminator: [UInt8] = [0x00, 0x01]

    /// Appends the component of `value`; strings folded as `[cd]` compares them when `folded`.
    static func append(_ value: Value, folded: Bool, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(Class.missing)
        case .bool(let bool): out.append(bool ? Class.true : Class.false)
        case .int(let int): appendNumber(int, base: Class.number, to: &out)
        case .double(let double): appendNumber(double, base: Class.number, to: &out)
        case .string(let string): appendString(string, folded: folded, to: &out)
        case .date(let date): appendNumber(date.timeIntervalSinceReferenceDate, base: Class.date, to: &out)
        case .bytes(let data):
            out.append(Class.bytes)
            appendEscaped(data, to: &out)
        case .reference(let ref):
            out.append(Class.reference)
            appendEscaped(ref.description.utf8, to: &out)
        case .array(let elements):
            out.append(Class.array)
            for element in elements { append(element, folded: folded, to: &out) }
            out.append(terminator)
        case .dictionary(let dictionary):
            out.append(Class.dictionary)
            let entries = dictionary.map { (UTF8Text.nfc($0.key), $0.value) }.sorted { UTF8Text.precedes($0.0, $1.0) }
            for (key, value) in entries {
                out.append(0x01)
                appendEscaped(key.utf8, to: &out)
                append(value, folded: folded, to: &out)
            }
            out.append(terminator)
        }
    }

    /// The component of `value` alone.
    static func component(_ value: Value, folded: Bool) -> [UInt8] {
        var out: [UInt8] = []
        // Room for the usual component at once: a string's bytes and terminator, a number's 11.
        if case .string(let string) = value { out.reserveCapacity(string.utf8.count + 3) } else { out.reserveCapacity(11) }
        append(value, folded: folded, to: &out)
        return out
    }

    /// Whether `==` can hold between `value` and anything: not for null (`== nil` tests for a
    /// value, and a unique index lets missing values repeat) nor NaN (equal to nothing).
    static func canEqual(_ value: Value) -> Bool {
        switch value {
        case .null: false
        case .double(let double): !double.isNaN
        case .date(let date): !date.timeIntervalSinceReferenceDate.isNaN
        default: true
        }
    }

    /// `string` in the form an index keeps it: NFC, or folded (`[cd]`) in a folded index.
    static func indexedForm(of string: String, folded: Bool) -> String {
        StringFolding.fold(string, folded ? [.caseInsensitive, .diacriticInsensitive] : [])
    }

    /// Appends a string component.
    static func appendString(_ string: String, folded: Bool, to out: inout [UInt8]) {
        out.append(Class.string)
        appendEscaped(indexedForm(of: string, folded: folded).utf8, to: &out)
    }

    /// Appends `bytes` with each `00` written `00 FF`, then the terminator `00 01`.
    static func appendEscaped(_ bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
        appendEscapedBody(bytes, to: &out)
        out.append(contentsOf: textTerminator)
    }

    /// Appends `bytes` with each `00` written `00 FF`, without a terminator: the start of every
    /// string (or bytes) component that begins with them.
    static func appendEscapedBody(_ bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
        // A string's UTF-8 (or bytes) in one buffer: copied in runs between zeros, not byte by byte.
        if bytes.withContiguousStorageIfAvailable({ appendEscapedBody(buffer: $0, to: &out) }) != nil { return }
        for byte in bytes {
            out.append(byte)
            if byte == 0 { out.append(0xFF) }
        }
    }

    private static func appendEscapedBody(buffer: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + buffer.count + textTerminator.count)
        var rest = buffer[...]
        while let zero = rest.firstIndex(of: 0) {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: rest[...zero]))
            out.append(0xFF)
            rest = rest[(zero + 1)...]
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: rest))
    }
}
