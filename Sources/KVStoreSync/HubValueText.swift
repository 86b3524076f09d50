import Foundation
import KVStore

/// A value's text for the hub's `jsonb` column: its typed JSON, or — when `jsonb` would not give
/// that back exactly — an envelope holding kvstore's own encoding of the value.
///
/// `jsonb` keeps numbers as `numeric`, which has no exponent and no negative zero (`1e+20` comes
/// back `100000000000000000000`, an integer out of range; `-0.0` comes back `0.0`), and it rejects
/// U+0000 in strings; key order and spacing change, which typed JSON does not mind. Such a value
/// travels as `{"$kv": "<base64>"}`: exact, though opaque to SQL on the hub. Typed JSON refuses a
/// dictionary whose only key is an unknown `$` tag (a user's `["$kv": …]` is written
/// `{"$dict":{"$kv":…}}`), so the envelope cannot be mistaken for a value.
enum HubValueText {
    /// The envelope's one key.
    static let envelopeKey = "$kv"

    /// The text to store for `value`.
    static func encode(_ value: Value) -> String {
        guard jsonbWouldChange(value) else { return TypedJSON.string(from: value) }
        return #"{""# + envelopeKey + #"":""# + Data(ValueCodec.encode(value)).base64EncodedString() + #""}"#
    }

    /// The value of a text the hub returned (`jsonb` as text, `{"$kv": "…"}` with its space).
    static func decode(_ text: String) throws(Problem) -> Value {
        if let encoded = envelopeContent(text) {
            guard let bytes = Data(base64Encoded: String(encoded)) else { throw Problem(description: "its \(envelopeKey) envelope is not base64") }
            do {
                return try ValueCodec.decode(bytes)
            } catch {
                throw Problem(description: "its \(envelopeKey) envelope does not hold a value: \(error)")
            }
        }
        do {
            return try TypedJSON.value(from: text)
        } catch {
            throw Problem(description: "its value is not typed JSON: \(error)")
        }
    }

    struct Problem: Error {
        let description: String
    }

    /// The base64 text of an envelope, or nil when `text` is not one. `jsonb` prints an object
    /// as `{"key": "value"}`; the form without the space is accepted too. A user's dictionary with
    /// a `$kv` key among others can print with the same start and end (`jsonb` sorts shorter keys
    /// first: `{"$kv": "x", "name": "y"}`): the envelope's one string holds no `"`.
    private static func envelopeContent(_ text: String) -> Substring? {
        for prefix in [#"{""# + envelopeKey + #"": ""#, #"{""# + envelopeKey + #"":""#] where text.hasPrefix(prefix) {
            guard text.hasSuffix(#""}"#), text.count >= prefix.count + 2 else { return nil }
            let content = text.dropFirst(prefix.count).dropLast(2)
            return content.utf8.contains(UInt8(ascii: "\"")) ? nil : content
        }
        return nil
    }

    /// Whether `jsonb` would give back something else than `value`'s typed JSON, or typed JSON
    /// would not read it back, walking without recursion (values nest up to
    /// `TypedJSON.maxDepth` levels and more).
    private static func jsonbWouldChange(_ value: Value) -> Bool {
        // Each value with the typed JSON containers around it: a value the store holds may still
        // nest deeper than typed JSON reads, as tagged scalars and `$dict` wrappers add a level.
        var pending = [(value, 0)]
        while let (next, around) = pending.popLast() {
            let depth = around + typedJSONLevels(of: next)
            if depth > TypedJSON.maxDepth { return true }
            switch next {
            case .double(let double) where double.isFinite:
                if double == 0, double.sign == .minus { return true }
                let text = TypedJSON.string(from: next)
                // An exponent: jsonb's numeric would give it back as an integer.
                if text.contains("e+") || text.contains("E+") { return true }
            case .date:
                // A date of whole-number seconds written as a number would come back as above.
                if !TypedJSON.string(from: next).hasPrefix(#"{"$date":""#) { return true }
            case .string(let string) where string.utf8.contains(0):
                return true
            case .array(let elements):
                pending.append(contentsOf: elements.lazy.map { ($0, depth) })
            case .dictionary(let dictionary):
                if dictionary.keys.contains(where: { $0.utf8.contains(0) }) { return true }
                pending.append(contentsOf: dictionary.values.lazy.map { ($0, depth) })
            default:
                break
            }
        }
        return false
    }

    /// The typed JSON arrays and objects `value` opens itself: one for a container or a tagged
    /// scalar, two for a dictionary written in a `$dict` wrapper.
    private static func typedJSONLevels(of value: Value) -> Int {
        switch value {
        case .null, .bool, .int, .string:
            0
        case .double(let double):
            double.isFinite ? 0 : 1
        case .bytes, .date, .reference, .array:
            1
        case .dictionary(let dictionary):
            dictionary.count == 1 && dictionary.keys.first?.utf8.first == UInt8(ascii: "$") ? 2 : 1
        }
    }
}
