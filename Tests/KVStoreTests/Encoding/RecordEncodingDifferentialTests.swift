import Foundation
import PropertyBased
import Testing
@testable import KVStore

/// The record encoder (``RecordCodec/encode(_:)``, the nested dictionaries of ``ValueCodec``, the
/// journal's ``JournalCodec/encode(_:encodedNew:)`` and the insert path that writes both) against
/// ``ReferenceEncoding``, a plain transcription of the layout kept here as the oracle: the bytes
/// must be identical for every record, including keys that share long prefixes, differ only in
/// their Unicode normalization, are empty, hold NUL or are not ASCII.
@Suite struct RecordEncodingDifferentialTests {
    @Test func generatedRecordsEncodeAsTheReference() async {
        await propertyCheck(count: 300, input: Gen.uint64()) { seed in
            var sampler = KeySampler(seed: seed)
            let record = sampler.record(depth: 1)
            let expected = ReferenceEncoding.record(record)
            #expect(RecordCodec.encode(record) == expected, "\(record)")
            #expect(ValueCodec.encode(.dictionary(record)) == [ValueCodec.version, ValueCodec.Tag.dictionary] + expected.dropFirst())
            #expect((try? RecordCodec.decode(expected)) == record)
        }
    }

    @Test(arguments: Self.edgeCases)
    func edgeCaseRecordsEncodeAsTheReference(_ record: [String: Value]) throws {
        let expected = ReferenceEncoding.record(record)
        #expect(RecordCodec.encode(record) == expected)
        #expect(try RecordCodec.decode(expected) == record)
    }

    /// The insert path stores the reference bytes as the record and embeds them in a journal
    /// entry that is itself the reference encoding of the entry's dictionary.
    @Test func insertedRecordsAndTheirJournalEntriesAreTheReferenceBytes() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        var sampler = KeySampler(seed: 7)
        // A stored record's top level has no nulls and no empty keys.
        let records = (Self.edgeCases + (0 ..< 40).map { _ in sampler.record(depth: 1) })
            .map { $0.filter { !$0.key.isEmpty && !$0.value.isNull } }
        let refs = records.indices.map { ref("edge/r\($0)") }
        try store.write { txn in
            for (record, ref) in zip(records, refs) { try txn.insert(record, as: ref) }
        }
        try store.read { txn in
            for (index, (record, ref)) in zip(records, refs).enumerated() {
                let stored = try txn.transaction.value(forKey: StoreLayout.recordKey(ref), in: store.databases.records)
                #expect(stored == ReferenceEncoding.record(record), "record \(index)")
                let sequence = UInt64(index + 1)
                let bytes = try #require(try txn.transaction.value(forKey: StoreLayout.sequenceKey(sequence), in: store.databases.journal))
                let entry = try bytes.withUnsafeBytes { try JournalCodec.decode($0, sequence: sequence) }
                #expect(entry.ref == ref && entry.change == .recordInserted)
                #expect(bytes == ReferenceEncoding.record(entry.dictionary), "journal entry \(index)")
                #expect(entry.newValue == .dictionary(record))
            }
        }
    }

    /// Keys whose first 16 bytes tie (the sort's packed prefix), NUL against the padding, the
    /// UTF-8 order against UTF-16 and scalar order, and both normal forms of a key.
    static let edgeCases: [[String: Value]] = [
        [:],
        ["": 1],
        ["": .null, "a": 2],
        ["a": 1, "a\u{0}": 2, "a\u{0}\u{0}": 3, "\u{0}": 4],
        ["abcdefgh": 1, "abcdefgh\u{0}": 2, "abcdefghabcdefgh": 3, "abcdefghabcdefgh\u{0}": 4, "abcdefghabcdefghZ": 5,
         "abcdefghabcdefgha": 6, "abcdefghabcdefghab": 7, "abcdefghabcdefgg": 8, "abcdefg": 9],
        [String(repeating: "x", count: 40) + "b": 1, String(repeating: "x", count: 40) + "a": 2,
         String(repeating: "x", count: 40): 3, String(repeating: "x", count: 39) + "é": 4],
        ["é": 1, "z": 2, "\u{FFFF}": 3, "😀": 4, "\u{E000}": 5, "~": 6, "\u{7F}": 7, "\u{80}": 8],
        ["e\u{301}": 1, "e": 2, "f": 3],
        ["é": 1, "e": 2, "f": 3],
        ["a\u{301}b": 1, "ab": 2, "á": 3],
        // Byte order and String order (canonical, by normalized scalars) disagree: "Z" + U+0301
        // is "Ź" (U+0179), after "é" as a String, before it in bytes; past the packed 16 bytes too.
        ["Z\u{301}": 1, "é": 2, "abcdefghabcdefghZ\u{301}": 3, "abcdefghabcdefghé": 4, "abcdefghabcdefghe\u{301}x": 5, "abcdefghabcdefghéa": 6],
        ["日本語": "text", "日本": 1, "日": ["nested": ["é": 1, "e\u{301}x": 2]]],
        ["k": .dictionary(["": .null, "b": .array([.dictionary(["y": 1, "x": 2]), .null])])],
        Dictionary(uniqueKeysWithValues: (0 ..< 200).map { ("key-\(199 - $0)", Value.int(Int64($0))) }),
        [String(NSString(string: "bridged-key-é-long-enough-not-small")): 1, String(NSString(string: "bridged")): 2, "bridged-key": 3],
    ]
}

/// Seeded records whose keys stress the sort: long shared prefixes, NUL, non-ASCII, both normal
/// forms, empty keys; values of every tag, nested dictionaries among them.
struct KeySampler {
    var values: ValueSampler

    init(seed: UInt64) { values = ValueSampler(seed: seed) }

    mutating func record(depth: Int) -> [String: Value] {
        var result: [String: Value] = [:]
        for _ in 0 ..< values.random.below(depth == 1 ? 24 : 5) {
            let value = depth < 3 && values.random.below(6) == 0
                ? .dictionary(record(depth: depth + 1)) : values.value(depth: depth + 2)
            result[key()] = value
        }
        return result
    }

    mutating func key() -> String {
        let stems = ["", "k", "abcdefgh", "abcdefghabcdefgh", "abcdefghabcdefg", "é", "e\u{301}", "日本", "😀", "\u{0}", "~"]
        var key = stems[values.random.below(stems.count)]
        for _ in 0 ..< values.random.below(4) {
            key += ["a", "b", "\u{0}", "é", "\u{301}", "Z", "0", "\u{7F}", "\u{80}", "😀"][values.random.below(10)]
        }
        return key
    }
}

/// The record layout of ``RecordCodec`` written out as plainly as possible, value by value: the
/// oracle for the encoder's bytes.
enum ReferenceEncoding {
    static func record(_ record: [String: Value]) -> [UInt8] {
        [1] + keyed(record)
    }

    static func keyed(_ dictionary: [String: Value]) -> [UInt8] {
        // Keys in NFC (Foundation's own normalisation, not the encoder's), then in byte order.
        let composed = dictionary.map { (key: Array($0.key.precomposedStringWithCanonicalMapping.utf8), value: $0.value) }
        let sorted = composed.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        let entries = sorted.map { varint(UInt64($0.key.count)) + $0.key + tagged($0.value) }
        var offsets: [UInt8] = []
        var offset: UInt32 = 0
        for entry in entries + [[]] {
            offsets += [UInt8(offset & 0xFF), UInt8(offset >> 8 & 0xFF), UInt8(offset >> 16 & 0xFF), UInt8(offset >> 24)]
            offset += UInt32(entry.count)
        }
        return varint(UInt64(entries.count)) + offsets + entries.flatMap { $0 }
    }

    static func tagged(_ value: Value) -> [UInt8] {
        switch value {
        case .null: [0x00]
        case .bool(let flag): [flag ? 0x02 : 0x01]
        case .int(let int): [0x03] + varint(UInt64(bitPattern: int < 0 ? ~(int << 1) : int << 1))
        case .double(let double): [0x04] + littleEndian(double.bitPattern)
        case .string(let string): [0x05] + varint(UInt64(string.utf8.count)) + Array(string.utf8)
        case .bytes(let data): [0x06] + varint(UInt64(data.count)) + Array(data)
        case .date(let date): [0x07] + littleEndian(date.timeIntervalSinceReferenceDate.bitPattern)
        case .array(let elements): [0x08] + varint(UInt64(elements.count)) + elements.flatMap(tagged)
        case .dictionary(let dictionary): [0x09] + keyed(dictionary)
        case .reference(let ref):
            [0x0A] + varint(UInt64(Array("\(ref.kind)/\(ref.id)".utf8).count)) + Array("\(ref.kind)/\(ref.id)".utf8)
        }
    }

    static func varint(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            bytes.append(UInt8(rest & 0x7F) | (rest >= 0x80 ? 0x80 : 0))
            rest >>= 7
        } while rest > 0
        return bytes
    }

    static func littleEndian(_ value: UInt64) -> [UInt8] {
        (0 ..< 8).map { UInt8(value >> (8 * UInt64($0)) & 0xFF) }
    }
}
