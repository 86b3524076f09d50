import Foundation
import KVStore

/// Values and records of every type, edge cases included, from which the targets make their seeds.
public enum Samples {
    public static let scalars: [Value] = [
        .null, true, false, 0, 1, -1, 63, 64, -65, 300, .int(.max), .int(.min),
        0.0, -0.0, 0.1, -2.5, 1e20, .double(.nan), .double(.infinity), .double(.leastNonzeroMagnitude),
        "", "hello", "é😀 \u{0}\u{1F}\n\t\"\\/", "e\u{301}",
        .bytes(Data()), .bytes(Data([0, 1, 2, 0xFE, 0xFF])),
        .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSince1970: 1_468_540_800.123_456_7)),
        .date(Date(timeIntervalSinceReferenceDate: .nan)), .date(Date(timeIntervalSinceReferenceDate: 1e300)),
        .reference(ref("person/ada")), .reference(ref("file/usr/local/bin")), .reference(ref("note/日本語")),
    ]

    /// Records: top-level dictionaries.
    public static let records: [[String: Value]] = [
        [:],
        ["name": "Ada", "born": 1815, "tags": ["math", "poetry"], "address": ["city": "London", "zip": .null]],
        ["$only": 1],
        ["$dict": ["$date": "not a date"]],
        ["é": 1, "e\u{301}x": 2, "Z": 3, "a": 4, "ab": 5, "aa": 6],
        ["cafe\u{301}": ["cafe\u{301}": 1, "\u{212B}": [["\u{1E9B}\u{323}": 2]]], "\u{1100}\u{1161}": 3],  // Unicode twins
        ["lines": [["sku": "a", "amount": 2], ["sku": "b", "amount": 3.5], ["sku": "a"]], "owner": .reference(ref("person/ada"))],
        Dictionary(uniqueKeysWithValues: scalars.enumerated().map { ("key\($0.offset)", $0.element) }),
    ]

    public static let values: [Value] = scalars + records.map(Value.dictionary) + [
        [], [[]], [1, "two", 3.0, .null, [true, [false]]], .array(scalars),
        (0 ..< 8).reduce(Value.string("deep")) { inner, _ in .array([inner]) },
    ]

    /// Kind declarations, in the journal form a `kindDeclared` entry carries (nil: an open kind).
    public static let declarations: [Value?] = [
        nil,
        ["format": 1, "keys": ["name": "string", "age": "int", "notes": .null, "caf\u{E9}": "date"]],
        ["format": 1, "keys": [:], "schemaVersion": -3],
        ["format": 2, "migrations": ["v2", "v3: ages"]],
        ["format": 1, "tracksModificationTimes": true, "schemaVersion": 2, "indexes": [
            ["keyPaths": ["feed", "published"], "unique": false, "folded": false],
            ["keyPaths": ["guid"], "unique": true, "folded": false],
            ["keyPaths": ["title.text"], "unique": false, "folded": true],
        ]],
    ]

    /// A reference known to be valid.
    public static func ref(_ text: String) -> RecordRef {
        guard let ref = try? RecordRef(text) else { fatalError("bad sample reference \(text)") }
        return ref
    }
}
