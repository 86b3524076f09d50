import Foundation
import Testing
@testable import KVStore

/// Decoding through learnt shapes gives exactly what the full decoder gives: the same values,
/// the same errors, on any bytes.
@Suite struct RecordShapesTests {
    /// Records of a few shapes (nested values, non-ASCII and decomposed keys, a long key), with
    /// values that change from record to record.
    static func records(count: Int, seed: UInt64) -> [[String: Value]] {
        var random = CodecRandom(seed: seed)
        let shapes: [[String]] = [
            (0 ..< 16).map { "k\($0)" },
            ["name", "é", "Kelvin\u{212A}", "😀", "address", "a key longer than fifteen bytes"],
            ["e\u{301}t\u{E9}", "tags", "n"],
        ]
        return (0 ..< count).map { index in
            let keys = shapes[random.below(shapes.count)]
            var record: [String: Value] = [:]
            for key in keys where random.below(10) > 0 || index % 7 != 0 {  // now and then a key less
                switch random.below(6) {
                case 0: record[key] = .int(Int64(bitPattern: random.next()))
                case 1: record[key] = .string("v\(random.below(1000))-ñ")
                case 2: record[key] = ["city": .string("c\(random.below(9))"), "geo": [1.5, .null]]
                case 3: record[key] = [.int(1), "x", ["deep": [true]]]
                case 4: record[key] = .double(Double(random.below(100)) / 3)
                default: record[key] = .reference(try! RecordRef(kind: "feed", id: "f\(random.below(20))"))
                }
            }
            return record
        }
    }

    @Test func decodesLikeTheFullDecoder() throws {
        var shapes = RecordShapes()
        for record in Self.records(count: 400, seed: 7) {
            let bytes = RecordCodec.encode(record)
            let decoded = try bytes.withUnsafeBytes { try shapes.decode($0) }
            #expect(decoded == (try RecordCodec.decode(bytes)))
            #expect(decoded == UTF8Text.composingKeys(record))
        }
        #expect(shapes.hits > 300, "records of known keys go through their shape")
    }

    /// Every byte of records whose shape is known changed, and every truncation: the result or
    /// the error is the full decoder's, never a trap.
    @Test func damagedRecordsGiveTheFullDecodersResultOrError() throws {
        var shapes = RecordShapes()
        let records = Self.records(count: 12, seed: 11).map(RecordCodec.encode)
        for bytes in records { _ = try bytes.withUnsafeBytes { try shapes.decode($0) } }
        var random = CodecRandom(seed: 3)
        for original in records {
            var variants = (0 ... original.count).map { Array(original.prefix($0)) }
            for position in original.indices {
                var damaged = original
                damaged[position] ^= UInt8(1 + random.below(255))
                variants.append(damaged)
            }
            for bytes in variants {
                let expected = Result { try RecordCodec.decode(bytes) }
                let got = Result { try bytes.withUnsafeBytes { try shapes.decode($0) } }
                switch (expected, got) {
                case (.success(let a), .success(let b)): #expect(a == b)
                case (.failure(let a), .failure(let b)): #expect("\(a)" == "\(b)")
                default: Issue.record("shape decoding \(got), full decoding \(expected), bytes \(bytes)")
                }
            }
        }
    }

    /// Two keys that are distinct bytes but equal `String`s: the full decoder refuses the record,
    /// so no shape is learnt from it, and the next record of the same bytes is refused again.
    @Test func canonicallyEqualKeysAreRefusedEveryTime() throws {
        var bytes: [UInt8] = [ValueCodec.version, 2]
        let entries: [[UInt8]] = [[1, 0x4B, ValueCodec.Tag.int, 2], [3, 0xE2, 0x84, 0xAA, ValueCodec.Tag.int, 4]]  // "K", "\u{212A}"
        var offset: UInt32 = 0
        for entry in [[]] + entries {
            offset += UInt32(entry.count)
            withUnsafeBytes(of: offset.littleEndian) { bytes.append(contentsOf: $0) }
        }
        for entry in entries { bytes.append(contentsOf: entry) }
        var shapes = RecordShapes()
        for _ in 0 ..< 3 {
            #expect(throws: ValueDecodingError.self) { try bytes.withUnsafeBytes { try shapes.decode($0) } }
        }
        #expect(shapes.hits == 0)
    }

    @Test func storeReadsUseShapesAndAgreeWithTheRecordsWritten() throws {
        let t = try TemporaryStore()
        let records = Self.records(count: 200, seed: 5)
        try t.store.write { txn in
            for (index, record) in records.enumerated() { try txn.insert(record, as: try RecordRef(kind: "item", id: "i\(1000 + index)")) }
        }
        try t.store.read { txn in
            for (index, record) in records.enumerated() {
                #expect(try txn.record(try RecordRef(kind: "item", id: "i\(1000 + index)")) == UTF8Text.composingKeys(record))
            }
            var scanned: [[String: Value]] = []
            try txn.forEachRecord(ofKind: "item") { scanned.append($0.values); return true }
            #expect(scanned == records.map(UTF8Text.composingKeys))
            #expect(txn.recordShapes.hits > 200)
        }
    }
}

/// The values a shape decodes are the record's own: each record's dictionary holds its values,
/// whatever records of the same shape were decoded before or after it, and changing one changes
/// no other.
@Suite struct RecordShapeValuesTests {
    @Test func recordsOfOneShapeKeepTheirOwnValues() throws {
        var shapes = RecordShapes()
        let records: [[String: Value]] = (0 ..< 6).map { index in
            ["name": .string(String(repeating: "n\(index)", count: 12)), "count": .int(Int64(index) * 1_000_003),
             "tags": [.string("t\(index)")], "ok": .bool(index.isMultiple(of: 2))]
        }
        var decoded = try records.map { record in try RecordCodec.encode(record).withUnsafeBytes { try shapes.decode($0) } }
        #expect(shapes.hits == records.count - 1)
        #expect(decoded == records)
        decoded[2]["name"] = "changed"
        decoded[2]["extra"] = .int(1)
        #expect(decoded[1] == records[1] && decoded[3] == records[3])
        #expect(try RecordCodec.encode(records[2]).withUnsafeBytes { try shapes.decode($0) } == records[2])
    }

    /// A record of a known shape that fails on its last value: the values decoded before it are
    /// given back, and the full decoder's error is thrown.
    @Test func aLateFailureGivesTheFullDecodersError() throws {
        var shapes = RecordShapes()
        let record: [String: Value] = ["a": .string(String(repeating: "x", count: 40)), "b": .string("tail")]
        let bytes = RecordCodec.encode(record)
        #expect(try bytes.withUnsafeBytes { try shapes.decode($0) } == record)
        var damaged = bytes
        damaged[damaged.count - 1] = 0xFF  // invalid UTF-8 in the last value
        let expected = Result { try RecordCodec.decode(damaged) }
        let got = Result { try damaged.withUnsafeBytes { try shapes.decode($0) } }
        guard case .failure(let a) = expected, case .failure(let b) = got else {
            Issue.record("expected both to fail: \(expected), \(got)")
            return
        }
        #expect("\(a)" == "\(b)")
        #expect(try bytes.withUnsafeBytes { try shapes.decode($0) } == record)
    }
}
