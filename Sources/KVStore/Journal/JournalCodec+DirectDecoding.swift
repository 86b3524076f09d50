import Foundation

/// Reading a journal entry straight from its encoding, without building its dictionary: what
/// replication and every journal reader spend most of their decoding on (a String and a hash
/// table insertion per field, then a lookup per field).
extension JournalCodec {
    /// The entry encoded in `bytes` when it has exactly the shape ``encode(_:encodedNew:)`` writes
    /// (known fields only, each of its type); nil otherwise — then the generic decoder
    /// (``decode(_:sequence:keepingRecordsEncoded:)``'s fallback) reads it, and names what is
    /// wrong with it. With `keepingRecordsEncoded`, a record insertion's record that
    /// ``RecordCodec/passThroughRecord(_:)`` vouches for is kept as its bytes.
    static func decodeDirectly(_ bytes: UnsafeRawBufferPointer, keepingRecordsEncoded: Bool = false) throws(ValueDecodingError) -> JournalEntry? {
        var reader = ByteReader(bytes)
        try ValueCodec.readVersion(from: &reader)
        try reader.enterContainer()
        let directory = try KeyDirectory(reading: &reader, isRecord: false)
        var fields = Fields()
        var previous: UnsafeRawBufferPointer?
        for index in 0..<directory.count {
            var entry = try directory.entryReader(index, depth: reader.depth)
            let key = try RecordCodec.readKey(from: &entry, after: previous)
            previous = key
            guard let field = Field(key) else { return nil }
            if keepingRecordsEncoded, case .new = field, fields.change == .recordInserted,
               let record = RecordCodec.passThroughRecord(&entry) {
                guard entry.isAtEnd else { return nil }
                fields.newRecord = record
                continue
            }
            let value = try ValueCodec.decodeTagged(from: &entry)
            guard entry.isAtEnd, fields.set(field, value) else { return nil }
        }
        reader.leaveContainer()
        try reader.seek(to: directory.entriesEnd)
        guard reader.isAtEnd else { return nil }
        return fields.entry()
    }

    /// The fields of an entry, by their key's bytes.
    enum Field {
        case change, commit, derived, indexes, keyPath, new, old, origin, ref, sequence, stamp, timestamp

        init?(_ key: UnsafeRawBufferPointer) {
            switch key.count {
            case 3:
                if Self.matches(key, "new") { self = .new } else if Self.matches(key, "old") { self = .old } else if Self.matches(key, "ref") { self = .ref } else { return nil }
            case 5:
                if Self.matches(key, "stamp") { self = .stamp } else { return nil }
            case 6:
                if Self.matches(key, "change") { self = .change } else if Self.matches(key, "commit") { self = .commit } else if Self.matches(key, "origin") { self = .origin } else { return nil }
            case 7:
                if Self.matches(key, "derived") { self = .derived } else if Self.matches(key, "indexes") { self = .indexes } else if Self.matches(key, "keyPath") { self = .keyPath } else { return nil }
            case 8:
                if Self.matches(key, "sequence") { self = .sequence } else { return nil }
            case 9:
                if Self.matches(key, "timestamp") { self = .timestamp } else { return nil }
            default:
                return nil
            }
        }

        private static func matches(_ key: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
            name.withUTF8Buffer { name in name.count == key.count && memcmp(name.baseAddress!, key.baseAddress!, key.count) == 0 }
        }
    }

    /// The values read so far, checked for their types as they come.
    private struct Fields {
        var change: ChangeKind?
        var commit: UInt64?
        var derived = false
        var indexes: [Int]?
        var keyPath: String?
        var new: Value?
        /// The inserted record's bytes, when kept encoded.
        var newRecord: [UInt8]?
        var old: Value?
        var origin: JournalOrigin?
        var ref: RecordRef?
        var sequence: UInt64?
        var stamp: HybridTime?
        var timestamp: Date?

        /// Stores `value` as `field`.
        /// - Returns: false when it is not of the field's type.
        mutating func set(_ field: Field, _ value: Value) -> Bool {
            switch (field, value) {
            case (.change, .string(let name)): change = ChangeKind(rawValue: name); return change != nil
            case (.commit, .int(let n)): commit = UInt64(bitPattern: n)
            case (.derived, .bool(let flag)): derived = flag
            case (.indexes, .array(let elements)):
                var ints: [Int] = []
                ints.reserveCapacity(elements.count)
                for element in elements {
                    guard case .int(let n) = element else { return false }
                    ints.append(Int(n))
                }
                indexes = ints
            case (.keyPath, .string(let text)): keyPath = text
            case (.new, _): new = value
            case (.old, _): old = value
            case (.origin, .dictionary(let o)):
                guard o.count == 2, let store = o["store"]?.stringValue.flatMap(UUID.init(uuidString:)),
                      let sequence = o["sequence"]?.intValue else { return false }
                origin = JournalOrigin(storeID: store, sequence: UInt64(bitPattern: sequence))
            case (.ref, .reference(let r)): ref = r
            case (.sequence, .int(let n)): sequence = UInt64(bitPattern: n)
            case (.stamp, .int(let n)): stamp = HybridTime(packed: UInt64(bitPattern: n))
            case (.timestamp, .date(let date)): timestamp = date
            default: return false
            }
            return true
        }

        /// The entry, when every required field was there.
        func entry() -> JournalEntry? {
            guard let change, let commit, let ref, let sequence, let timestamp else { return nil }
            var entry = JournalEntry(
                sequence: sequence, commitID: commit, timestamp: timestamp, stamp: stamp, origin: origin, ref: ref,
                keyPath: keyPath, change: change, oldValue: old, newValue: new, indexes: indexes, isDerived: derived)
            if let newRecord { entry.newStorage = .encodedRecord(newRecord) }
            return entry
        }
    }
}
