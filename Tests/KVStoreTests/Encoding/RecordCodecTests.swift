import Foundation
import Testing
@testable import KVStore

@Suite struct RecordCodecTests {
    static let records: [[String: Value]] = [
        [:],
        ["only": 1],
        ["": "empty key", "a": 1],
        ["name": "Ada", "born": 1815, "tags": ["math", "poetry"], "address": ["city": "London"]],
        ["b": 1, "ba": 2, "bb": 3, "bab": 4, "é": 5, "z": 6, "Z": 7, "😀": 8],
        Dictionary(uniqueKeysWithValues: (0 ..< 300).map { ("key-\($0)", Value.int(Int64($0))) }),
        Dictionary(uniqueKeysWithValues: ValueSamples.all.enumerated().map { ("v\($0.offset)", $0.element) }),
    ]

    @Test(arguments: records)
    func roundTrips(_ record: [String: Value]) throws {
        let bytes = RecordCodec.encode(record)
        #expect(try RecordCodec.decode(bytes) == record)
    }

    @Test(arguments: records)
    func readsEachKeyLikeTheFullDecode(_ record: [String: Value]) throws {
        let bytes = RecordCodec.encode(record)
        let full = try RecordCodec.decode(bytes)
        for (key, value) in full {
            #expect(try lookUp(key, in: bytes) == value, "key \(key)")
        }
    }

    @Test(arguments: records)
    func listsKeysInByteOrder(_ record: [String: Value]) throws {
        let bytes = RecordCodec.encode(record)
        let keys = try bytes.withUnsafeBytes { try RecordCodec.keys(in: $0) }
        let expected = record.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(keys == expected)
    }

    @Test(arguments: [
        "", "0", "A", "a", "aa", "b0", "bac", "bz", "c", "zz", "~", "\u{10FFFF}", "key-", "key-299x",
    ])
    func returnsNilForAbsentKeys(_ key: String) throws {
        // Absent keys fall before the first, between two, or after the last key.
        let record: [String: Value] = ["b": 1, "ba": 2, "bb": 3, "bab": 4, "key-1": 5, "y": 6]
        let bytes = RecordCodec.encode(record)
        #expect(try lookUp(key, in: bytes) == nil)
        #expect(try lookUp(key, in: RecordCodec.encode([:])) == nil)
    }

    @Test func layoutHasAKeyDirectory() {
        let bytes = RecordCodec.encode(["b": true, "a": 1])
        #expect(bytes == [
            1,                    // version
            2,                    // count
            0, 0, 0, 0,           // offset of entry "a"
            4, 0, 0, 0,           // offset of entry "b"
            7, 0, 0, 0,           // end of entries
            1, 0x61, 0x03, 2,     // "a": .int(1)
            1, 0x62, 0x02,        // "b": true
        ])
    }

    /// Keys are stored in NFC and looked up in NFC: either spelling of `é` finds the key.
    @Test func matchesKeysInNormalizationFormC() throws {
        let bytes = RecordCodec.encode(["e\u{301}": 1])
        #expect(bytes.contains(0xC3) && !bytes.contains(0xCC))  // stored as U+00E9, not e + U+0301
        #expect(try lookUp("\u{E9}", in: bytes) == 1)
        #expect(try lookUp("e\u{301}", in: bytes) == 1)
        #expect(try lookUp("e", in: bytes) == nil)
    }

    @Test(arguments: [
        // Entry offsets not increasing.
        ([1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 1, 0x61, 0x03, 2, 1, 0x62, 0x02], "dictionary entry offsets out of order"),
        // First offset not 0.
        ([1, 1, 1, 0, 0, 0, 3, 0, 0, 0, 1, 0x61, 0x00], "first dictionary entry offset is 1, not 0"),
        // Entries longer than the buffer.
        ([1, 1, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0x61, 0x00], "dictionary entries take 9 bytes but 3 remain"),
        // Keys out of order.
        ([1, 2, 0, 0, 0, 0, 3, 0, 0, 0, 6, 0, 0, 0, 1, 0x62, 0x00, 1, 0x61, 0x00], "dictionary keys out of order or duplicated"),
        // Duplicate keys.
        ([1, 2, 0, 0, 0, 0, 3, 0, 0, 0, 6, 0, 0, 0, 1, 0x61, 0x00, 1, 0x61, 0x00], "dictionary keys out of order or duplicated"),
        // A value running past its entry.
        ([1, 1, 0, 0, 0, 0, 3, 0, 0, 0, 1, 0x61, 0x03], "truncated int"),
        // A value shorter than its entry.
        ([1, 1, 0, 0, 0, 0, 4, 0, 0, 0, 1, 0x61, 0x00, 0x00], "1 trailing bytes in the entry of key 'a'"),
        // Invalid UTF-8 in a key.
        ([1, 1, 0, 0, 0, 0, 3, 0, 0, 0, 1, 0xFF, 0x00], "invalid UTF-8 in dictionary key"),
        // A count larger than the bytes can hold.
        ([1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0, 0, 0, 0], "truncated dictionary entry count"),
    ] as [([UInt8], String)])
    func rejectsCorruptDirectories(bytes: [UInt8], problem: String) throws {
        #expect {
            try RecordCodec.decode(bytes)
        } throws: { error in
            (error as? ValueDecodingError)?.problem.hasPrefix(problem) == true
        }
        // The partial readers may or may not notice, but must not trap.
        bytes.withUnsafeBytes { buffer in
            _ = try? RecordCodec.keys(in: buffer)
            for key in ["", "a", "b", "c"] { _ = try? RecordCodec.value(forKey: key, in: buffer) }
        }
    }

    @Test func rejectsTrailingBytesAndOtherVersions() {
        var bytes = RecordCodec.encode(["a": 1])
        bytes.append(0)
        #expect(throws: ValueDecodingError.self) { try RecordCodec.decode(bytes) }
        #expect(throws: ValueDecodingError.self) { try lookUp("a", in: bytes) }
        #expect(throws: ValueDecodingError(offset: 0, problem: "unsupported encoding version 2 (this build reads 1)")) {
            try RecordCodec.decode([2, 0, 0, 0, 0, 0])
        }
    }

    @Test func valueForKeyDecodesOnlyItsEntry() throws {
        // A corrupt value under another key does not stop reading a good one.
        var bytes = RecordCodec.encode(["a": 1, "b": "text"])
        let corrupt = try #require(bytes.lastIndex(of: 0x05))  // the tag of "text"
        bytes[corrupt] = 0x3F
        #expect(throws: ValueDecodingError.self) { try RecordCodec.decode(bytes) }
        #expect(try lookUp("a", in: bytes) == 1)
        #expect(throws: ValueDecodingError.self) { try lookUp("b", in: bytes) }
    }

    /// `RecordCodec.value(forKey:in:)` on an array.
    private func lookUp(_ key: String, in bytes: [UInt8]) throws -> Value? {
        try bytes.withUnsafeBytes { try RecordCodec.value(forKey: key, in: $0) }
    }
}
