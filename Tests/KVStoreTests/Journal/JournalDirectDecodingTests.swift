import Foundation
import Testing
@testable import KVStore

/// The journal's direct decoder reads exactly what the generic one reads, and leaves anything
/// not in the written shape to it.
@Suite struct JournalDirectDecodingTests {
    private func direct(_ bytes: [UInt8]) throws -> JournalEntry? {
        try bytes.withUnsafeBytes { buffer in Result { () throws(ValueDecodingError) in try JournalCodec.decodeDirectly(buffer) } }.get()
    }

    private func generic(_ bytes: [UInt8]) throws -> JournalEntry {
        try JournalEntry(dictionary: RecordCodec.decode(bytes))
    }

    @Test func everyEntryShapeDecodesDirectlyToWhatTheGenericDecoderGives() throws {
        let t = try TemporaryStore()
        try fillWithEveryChange(t.store)
        var entries = try t.store.journalEntries()
        entries.append(JournalEntry(
            sequence: 99, commitID: 7, timestamp: Date(timeIntervalSince1970: 12.5), origin: JournalOrigin(storeID: UUID(), sequence: 5),
            ref: ref("person/ada"), keyPath: "address.city", change: .setting, oldValue: nil, newValue: "Rome", indexes: nil, isDerived: true))
        entries.append(JournalEntry(
            sequence: 100, commitID: 8, timestamp: Date(), origin: nil, ref: ref("person/ada"), keyPath: "tags",
            change: .removal, oldValue: ["a", "b"], newValue: nil, indexes: [0, 1], isDerived: false))
        for entry in entries {
            let bytes = JournalCodec.encode(entry)
            #expect(try direct(bytes) == entry)
            #expect(try generic(bytes) == entry)
        }
    }

    @Test func anythingElseIsLeftToTheGenericDecoder() throws {
        let base: [String: Value] = [
            "change": "setting", "commit": 1, "keyPath": "name", "new": "Ada", "ref": .reference(ref("person/ada")),
            "sequence": 3, "timestamp": .date(Date(timeIntervalSince1970: 1)),
        ]
        var extra = base
        extra["note"] = "an unknown field"
        #expect(try direct(RecordCodec.encode(extra)) == nil)
        #expect(try generic(RecordCodec.encode(extra)).keyPath == "name")   // the generic decoder ignores it
        var origin = base
        origin["origin"] = ["store": .string(UUID().uuidString), "sequence": 2, "more": 1]
        #expect(try direct(RecordCodec.encode(origin)) == nil)
        for (field, wrong) in [("commit", Value.string("1")), ("change", "nonsense"), ("indexes", ["x"]), ("derived", 1), ("timestamp", 5)] {
            var bad = base
            bad[field] = wrong
            let bytes = RecordCodec.encode(bad)
            #expect(try direct(bytes) == nil, "\(field)")
            #expect(throws: StoreError.self) { try bytes.withUnsafeBytes { try JournalCodec.decode($0, sequence: 3) } }
        }
        var missing = base
        missing["ref"] = nil
        #expect(try direct(RecordCodec.encode(missing)) == nil)
        let error = #expect(throws: StoreError.self) { try RecordCodec.encode(missing).withUnsafeBytes { try JournalCodec.decode($0, sequence: 3) } }
        #expect(error?.message == "journal entry 3 is corrupt: journal entry has no 'ref'")
    }
}

/// Damaged entries (cut short, a byte changed): the direct decoder never crashes, never reads
/// an entry the generic decoder would not read the same, and never refuses one it would read.
@Suite struct JournalDirectDecodingDamageTests {
    @Test func damagedBytesDecodeDirectlyAsTheGenericDecoderReadsThemOrNotAtAll() throws {
        let t = try TemporaryStore()
        try fillWithEveryChange(t.store)
        var entries = try t.store.journalEntries()
        entries.append(JournalEntry(
            sequence: 99, commitID: 7, timestamp: Date(timeIntervalSince1970: 12.5), origin: JournalOrigin(storeID: UUID(), sequence: 5),
            ref: ref("person/ada"), keyPath: "tags", change: .insertion, oldValue: nil, newValue: ["x"], indexes: [2], isDerived: true))
        for bytes in entries.flatMap({ damagedVersions(of: JournalCodec.encode($0)) }) {
            let direct = Result { try bytes.withUnsafeBytes { buffer in try Result { () throws(ValueDecodingError) in try JournalCodec.decodeDirectly(buffer) }.get() } }
            let generic = Result { try JournalEntry(dictionary: RecordCodec.decode(bytes)) }
            switch (direct, generic) {
            case (.success(let entry?), .success(let expected)): #expect(entry == expected, "\(bytes)")
            case (.success(.some), .failure): Issue.record("read directly, refused by the generic decoder: \(bytes)")
            case (.failure, .success): Issue.record("refused directly, read by the generic decoder: \(bytes)")
            default: break
            }
        }
    }
}

/// Every prefix of `bytes`, and `bytes` with each byte flipped three ways (0x01, 0x80, 0xFF).
func damagedVersions(of bytes: [UInt8]) -> [[UInt8]] {
    var damaged: [[UInt8]] = []
    for length in 0..<bytes.count { damaged.append(Array(bytes[..<length])) }
    for position in bytes.indices {
        for change: UInt8 in [0x01, 0x80, 0xFF] {
            var copy = bytes
            copy[position] ^= change
            damaged.append(copy)
        }
    }
    return damaged
}
