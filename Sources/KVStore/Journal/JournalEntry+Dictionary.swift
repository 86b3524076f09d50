import Foundation

/// The dictionary form of a journal entry: the one shape used for its binary encoding in the
/// `journal` database and, through typed JSON, by `kvstore journal list`.
///
/// ```json
/// {"change":"setting","commit":3,"keyPath":"name","new":"Ada","old":"Ada B.","ref":{"$ref":"person/ada"},
///  "sequence":7,"stamp":117656125448060930,"timestamp":{"$date":"2026-11-21T19:40:00.123Z"}}
/// ```
/// `stamp` is ``JournalEntry/stamp`` as one int, ``HybridTime/packed`` (`wall << 16 | counter`).
/// Absent old or new values, stamp, origin, indexes and `derived` are left out.
extension JournalEntry {
    /// The entry as a dictionary of values.
    public var dictionary: [String: Value] {
        var d: [String: Value] = [
            "sequence": .int(Int64(bitPattern: sequence)),
            "commit": .int(Int64(bitPattern: commitID)),
            "timestamp": .date(timestamp),
            "ref": .reference(ref),
            "change": .string(change.rawValue),
        ]
        if let stamp { d["stamp"] = .int(Int64(bitPattern: stamp.packed)) }
        if let keyPath { d["keyPath"] = .string(keyPath) }
        if let oldValue { d["old"] = oldValue }
        if let newValue { d["new"] = newValue }
        if let indexes { d["indexes"] = .array(indexes.map { .int(Int64($0)) }) }
        if let origin {
            d["origin"] = [
                "store": .string(origin.storeID.lowercasedText),
                "sequence": .int(Int64(bitPattern: origin.sequence)),
            ]
        }
        if isDerived { d["derived"] = true }
        return d
    }

    /// Reads an entry back from its dictionary form.
    /// - Throws: ``JournalFormatError`` naming the field that is missing or malformed.
    public init(dictionary d: [String: Value]) throws(JournalFormatError) {
        func field<T>(_ name: String, _ get: (Value) -> T?) throws(JournalFormatError) -> T {
            guard let raw = d[name] else { throw JournalFormatError("journal entry has no '\(name)'") }
            guard let value = get(raw) else {
                throw JournalFormatError("journal entry field '\(name)' is \(raw.type), not the expected type")
            }
            return value
        }
        func optional<T>(_ name: String, _ get: (Value) -> T?) throws(JournalFormatError) -> T? {
            d[name] == nil ? nil : try field(name, get)
        }
        let sequence = try field("sequence") { $0.intValue.map { UInt64(bitPattern: $0) } }
        let commit = try field("commit") { $0.intValue.map { UInt64(bitPattern: $0) } }
        let changeName = try field("change", \.stringValue)
        guard let change = ChangeKind(rawValue: changeName) else {
            throw JournalFormatError("journal entry has unknown change kind '\(changeName)'")
        }
        var origin: JournalOrigin?
        if let o = try optional("origin", \.dictionaryValue) {
            guard let store = o["store"]?.stringValue.flatMap(UUID.init(uuidString:)),
                  let seq = o["sequence"]?.intValue
            else { throw JournalFormatError("journal entry has a malformed 'origin'") }
            origin = JournalOrigin(storeID: store, sequence: UInt64(bitPattern: seq))
        }
        let indexes = try optional("indexes") { v -> [Int]? in
            guard let a = v.arrayValue else { return nil }
            let ints = a.compactMap { $0.intValue.map(Int.init) }
            return ints.count == a.count ? ints : nil
        }
        self.init(
            sequence: sequence, commitID: commit, timestamp: try field("timestamp", \.dateValue),
            stamp: try optional("stamp") { $0.intValue.map { HybridTime(packed: UInt64(bitPattern: $0)) } }, origin: origin, ref: try field("ref", \.referenceValue),
            keyPath: try optional("keyPath", \.stringValue), change: change,
            oldValue: d["old"], newValue: d["new"], indexes: indexes,
            isDerived: try optional("derived", \.boolValue) ?? false)
    }
}

/// A journal entry that does not have the expected shape.
public struct JournalFormatError: Error, Sendable, CustomStringConvertible {
    /// The field concerned and what is wrong with it.
    public let description: String
    init(_ description: String) { self.description = description }
}
