import Foundation
import PropertyBased
import Testing
@testable import KVStore

/// The insert path's scalar fast path (``RecordCodec/encodeScalars(_:)``) against the reference
/// layout, and what an insert stores: the record and its journal entry byte for byte as the
/// generic encoders write them, for records of the benchmark's shape and generated ones.
@Suite struct ScalarRecordEncodingTests {
    /// Whether every top-level value of `record` is one the fast path resolves.
    static func isScalar(_ record: [String: Value]) -> Bool {
        record.values.allSatisfy {
            switch $0 {
            case .bool, .int, .double, .date, .string: true
            default: false
            }
        }
    }

    @Test func generatedScalarRecordsEncodeAsTheReference() async {
        await propertyCheck(count: 400, input: Gen.uint64()) { seed in
            var values = ValueSampler(seed: seed, asciiKeysOnly: true)
            for record in [values.record(), values.record().filter { Self.isScalar([$0.key: $0.value]) }] {
                let scalars = RecordCodec.encodeScalars(record)
                if Self.isScalar(record) && PlainRecordEncodingTests.isPlain(record) && !record.isEmpty {
                    #expect(scalars == ReferenceEncoding.record(record), "\(record)")
                    #expect(RecordCodec.encodePlain(record)?.bytes == scalars)
                } else {
                    #expect(scalars == nil, "\(record)")
                    PlainRecordEncodingTests.check(record)
                }
            }
        }
    }

    /// Keys past 16 bytes (compared whole), more than 16 entries (slots off the stack), every
    /// varint length of an int and of a string's length.
    @Test func longKeysAndManyEntriesEncodeAsTheReference() {
        var values = ValueSampler(seed: 11, asciiKeysOnly: true)
        let long = String(repeating: "x", count: 40)
        for count in [1, 15, 16, 17, 40] {
            var record: [String: Value] = [:]
            for number in 0 ..< count {
                let key = number % 3 == 0 ? long + "\(number)" : "k\(number)"
                record[key] = switch number % 5 {
                case 0: .int(values.int())
                case 1: .string(String(repeating: "s", count: number * 7))
                case 2: .double(values.double())
                case 3: .date(Date(timeIntervalSinceReferenceDate: values.double()))
                default: .bool(number % 2 == 0)
                }
            }
            #expect(RecordCodec.encodeScalars(record) == ReferenceEncoding.record(record), "\(count) entries")
        }
    }

    @Test(arguments: [
        ["a": .bytes(Data([1]))], ["a": .reference(ref("k/x"))], ["a": [1]], ["a": ["b": 1]], ["a": .null],
        ["é": 1], ["a.b": 1], ["@a": 1], [:],
    ] as [[String: Value]])
    func recordsBeyondScalarsAreLeftToThePlainPass(_ record: [String: Value]) {
        #expect(RecordCodec.encodeScalars(record) == nil)
    }

    /// Records of the benchmark's shape inserted in one transaction: each stored record is
    /// ``RecordCodec/encode(_:)``'s bytes and each journal entry is its dictionary's generic
    /// encoding, so the insert path's fast paths store what the general encoders would.
    @Test func insertsStoreTheGenericEncodingsOfRecordAndEntry() throws {
        let temporary = try TemporaryStore()
        var values = ValueSampler(seed: 18, asciiKeysOnly: true)
        let records: [[String: Value]] = (0 ..< 40).map { number in
            var record: [String: Value] = ["k0": .int(Int64(number)), "k1": .string(String(repeating: "w", count: number)),
                                           "k2": .double(values.double()), "k3": .bool(number % 2 == 0)]
            if number % 4 == 0 { record["k4"] = .date(Date(timeIntervalSinceReferenceDate: Double(number))) }
            if number % 8 == 1 { record["k5"] = .array([.int(1)]) }
            return record
        }
        try temporary.store.write { txn in
            for (number, record) in records.enumerated() { try txn.insert(record, as: ref("bench/r\(number)")) }
        }
        try temporary.store.read { txn in
            for (number, record) in records.enumerated() {
                let stored = try txn.transaction.value(forKey: StoreLayout.recordKey(ref("bench/r\(number)")), in: temporary.store.databases.records)
                #expect(stored == RecordCodec.encode(record))
            }
            for sequence in 1 ... UInt64(records.count) {
                let stored = try #require(try txn.transaction.value(forKey: StoreLayout.sequenceKey(sequence), in: temporary.store.databases.journal))
                let entry = try stored.withUnsafeBytes { try JournalCodec.decode($0, sequence: sequence) }
                #expect(entry.newValue == .dictionary(records[Int(sequence) - 1]))
                #expect(stored == RecordCodec.encode(entry.dictionary))
                #expect(stored == JournalCodec.encode(entry))
            }
        }
    }

    @Test func anEntryInTemporaryMemoryIsTheEntryEncoded() async {
        await propertyCheck(count: 100, input: Gen.uint64()) { seed in
            var values = ValueSampler(seed: seed)
            var records = ValueSampler(seed: seed, asciiKeysOnly: true)
            let record = records.record()
            let encodedNew = RecordCodec.encode(record)
            let entry = JournalEntry(
                sequence: UInt64(values.random.below(1 << 20)), commitID: 3, timestamp: Date(timeIntervalSinceReferenceDate: 9),
                stamp: HybridTime(packed: UInt64(values.random.below(1 << 40))), ref: ref("kind/id"), keyPath: nil,
                change: .recordInserted, oldValue: nil, newValue: .dictionary(record))
            let inMemory = JournalCodec.withEncoding(entry, encodedNew: encodedNew) { Array($0) }
            #expect(inMemory == JournalCodec.encode(entry, encodedNew: encodedNew))
            #expect(inMemory == RecordCodec.encode(entry.dictionary))
        }
    }
}
