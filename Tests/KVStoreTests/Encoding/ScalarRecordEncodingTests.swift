import Foundation
import PropertyBased
import Testing
@testable import KVStore

/// The insert path's scalar fast path (``RecordCodec/encodeScalars(_:)``) against the reference
/// layout.
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
}
