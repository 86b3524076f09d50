import KVStore

/// A record as the JSON text the GRDB engine stores in its `data` column: the same 16 keys and
/// values as kvstore's record (ints as JSON integers, doubles as JSON numbers, bools as true/false,
/// arrays as arrays; a reference as its id, as a table holds a foreign key: the feed items'
/// `feed`).
enum JSONRecord {
    static func text(_ values: [String: Value]) -> String {
        var text = "{"
        for (offset, key) in values.keys.sorted().enumerated() {
            if offset > 0 { text += "," }
            text += quoted(key) + ":" + json(values[key] ?? .null)
        }
        return text + "}"
    }

    static func json(_ value: Value) -> String {
        switch value {
        case .int(let int): String(int)
        case .double(let double): "\(double)"
        case .bool(let bool): bool ? "true" : "false"
        case .string(let string): quoted(string)
        case .array(let items): "[" + items.map(json).joined(separator: ",") + "]"
        case .reference(let ref): quoted(ref.id)
        default: "null"  // the dataset holds only the kinds above
        }
    }

    private static func quoted(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case _ where scalar.value < 0x20: text += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}
