import Foundation
import Testing
@testable import KVStore

/// Values of every type, including the edge cases, shared by the codec and typed-JSON tests.
enum ValueSamples {
    static let scalars: [Value] = [
        .null, true, false,
        0, 1, -1, 63, 64, -64, -65, 300, .int(.max), .int(.min),
        0.0, -0.0, 1.0, 0.1, -2.5, 1e20, 1e-7, .double(.nan), .double(.infinity), .double(-.infinity),
        .double(.leastNonzeroMagnitude), .double(.greatestFiniteMagnitude), .double(-.leastNormalMagnitude),
        "", "hello", "é😀 \u{0}\u{1F}\n\t\"\\/", "\u{2028}\u{7F}",
        .bytes(Data()), .bytes(Data([0, 1, 2, 0xFE, 0xFF])), .bytes(Data(repeating: 0xAB, count: 300)),
        .date(Date(timeIntervalSinceReferenceDate: 0)),
        .date(Date(timeIntervalSince1970: 0)),
        .date(Date(timeIntervalSince1970: 0.5)),
        .date(Date(timeIntervalSince1970: 0.001)),
        .date(Date(timeIntervalSince1970: 1e-6)),
        .date(Date(timeIntervalSince1970: 1_468_540_800.123_456_7)),
        .date(Date(timeIntervalSince1970: -1.25)),
        .date(Date(timeIntervalSinceReferenceDate: .leastNonzeroMagnitude)),
        .date(Date(timeIntervalSinceReferenceDate: -.leastNonzeroMagnitude)),
        .date(Date(timeIntervalSinceReferenceDate: -0.0)),
        .date(Date(timeIntervalSinceReferenceDate: 1e300)),
        .date(Date(timeIntervalSinceReferenceDate: .nan)),
        .date(Date(timeIntervalSinceReferenceDate: -.infinity)),
        .date(.distantPast), .date(.distantFuture),
        .reference(try! RecordRef("person/ada")),
        .reference(try! RecordRef("file/usr/local/bin")),
        .reference(try! RecordRef("note/日本語")),
    ]

    static let containers: [Value] = [
        [], [[]], [:], ["": ""], [[:]],
        [1, "two", 3.0, .null, [true, [false]]],
        ["name": "Ada", "born": 1815, "tags": ["math", "poetry"], "address": ["city": "London", "zip": .null]],
        ["$only": 1],
        ["$dict": ["$date": "not a date"]],
        ["$date": 1, "other": 2],
        ["a": ["$ref": "x"]],
        ["é": 1, "e\u{301}x": 2, "Z": 3, "a": 4, "ab": 5, "aa": 6],
        .array(scalars),
        .dictionary(Dictionary(uniqueKeysWithValues: scalars.enumerated().map { ("key\($0.offset)", $0.element) })),
    ]

    static let all: [Value] = scalars + containers

    /// `depth` arrays nested in each other around `inner`.
    static func nested(_ depth: Int, around inner: Value = .null) -> Value {
        (0 ..< depth).reduce(inner) { value, _ in .array([value]) }
    }
}

@Suite struct ValueCodecTests {
    @Test(arguments: ValueSamples.all)
    func roundTripsEveryValue(_ value: Value) throws {
        let bytes = ValueCodec.encode(value)
        #expect(bytes.first == ValueCodec.version)
        #expect(try ValueCodec.decode(bytes) == value)
        #expect(try ValueCodec.decode(Data(bytes)) == value)
    }

    @Test func encodingIsCompactAndTagged() {
        #expect(ValueCodec.encode(.null) == [1, 0x00])
        #expect(ValueCodec.encode(false) == [1, 0x01])
        #expect(ValueCodec.encode(true) == [1, 0x02])
        #expect(ValueCodec.encode(0) == [1, 0x03, 0])
        #expect(ValueCodec.encode(-1) == [1, 0x03, 1])
        #expect(ValueCodec.encode(1) == [1, 0x03, 2])
        #expect(ValueCodec.encode(64) == [1, 0x03, 0x80, 0x01])
        #expect(ValueCodec.encode(.int(.max)) == [1, 0x03] + Array(repeating: 0xFE, count: 1) + Array(repeating: 0xFF, count: 8) + [0x01])
        #expect(ValueCodec.encode(.int(.min)) == [1, 0x03] + Array(repeating: 0xFF, count: 9) + [0x01])
        #expect(ValueCodec.encode(1.0) == [1, 0x04, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F])
        #expect(ValueCodec.encode("hé") == [1, 0x05, 3, 0x68, 0xC3, 0xA9])
        #expect(ValueCodec.encode(.bytes(Data([7, 8]))) == [1, 0x06, 2, 7, 8])
        #expect(ValueCodec.encode(.date(Date(timeIntervalSinceReferenceDate: 1.0))) == [1, 0x07, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F])
        #expect(ValueCodec.encode([]) == [1, 0x08, 0])
        #expect(ValueCodec.encode([.null, true]) == [1, 0x08, 2, 0x00, 0x02])
        #expect(ValueCodec.encode([:]) == [1, 0x09, 0, 0, 0, 0, 0])
        #expect(ValueCodec.encode(.reference(try! RecordRef("a/b"))) == [1, 0x0A, 3, 0x61, 0x2F, 0x62])
    }

    @Test func nestedEncodingHasNoVersionByte() {
        var bytes: [UInt8] = []
        ValueCodec.encode(.int(-1), into: &bytes)
        #expect(bytes == [0x03, 1])
    }

    @Test func datesRoundTripToTheBit() throws {
        var random = CodecRandom(seed: 7)
        for _ in 0 ..< 200 {
            let interval = Double(bitPattern: random.next())
            let value = Value.date(Date(timeIntervalSinceReferenceDate: interval))
            let decoded = try ValueCodec.decode(ValueCodec.encode(value))
            #expect(decoded.dateValue?.timeIntervalSinceReferenceDate.bitPattern == interval.bitPattern)
        }
    }

    @Test func dictionaryEncodingIsDeterministic() {
        var first: [String: Value] = [:]
        var second: [String: Value] = [:]
        let keys = (0 ..< 50).map { "k\($0)" }
        for key in keys { first[key] = .string(key) }
        for key in keys.reversed() { second[key] = .string(key) }
        #expect(ValueCodec.encode(.dictionary(first)) == ValueCodec.encode(.dictionary(second)))
    }

    @Test func refusesANewerVersion() {
        #expect(throws: ValueDecodingError(offset: 0, problem: "unsupported encoding version 9 (this build reads 1)")) {
            try ValueCodec.decode([9, 0])
        }
        let error = ValueDecodingError(offset: 0, problem: "unsupported encoding version 9 (this build reads 1)")
        #expect(error.description == "unsupported encoding version 9 (this build reads 1) at offset 0")
    }

    @Test(arguments: [
        ([], "truncated encoding version at offset 0"),
        ([1], "truncated value tag at offset 1"),
        ([1, 0x3F], "unknown value tag 0x3f at offset 1"),
        ([1, 0x00, 0x00], "1 trailing bytes after the value at offset 2"),
        ([1, 0x03], "truncated int at offset 2"),
        ([1, 0x03] + Array(repeating: 0xFF, count: 9) + [0x02], "varint of int overflows 64 bits at offset 2"),
        ([1, 0x03] + Array(repeating: 0x80, count: 10) + [0x00], "varint of int overflows 64 bits at offset 2"),
        ([1, 0x04, 0, 0], "truncated double at offset 2"),
        ([1, 0x05, 5, 0x61], "truncated string: length 5 exceeds the 1 bytes left at offset 2"),
        ([1, 0x05, 2, 0xC3, 0x28], "invalid UTF-8 in string at offset 2"),
        ([1, 0x05, 3, 0xED, 0xA0, 0x80], "invalid UTF-8 in string at offset 2"),
        ([1, 0x06, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], "truncated bytes: length 4294967295 exceeds the 0 bytes left at offset 2"),
        ([1, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], "truncated array: length 9223372036854775807 exceeds the 0 bytes left at offset 2"),
        ([1, 0x08, 2, 0x00], "truncated array: length 2 exceeds the 1 bytes left at offset 2"),
        ([1, 0x08, 2, 0x00, 0x05], "truncated string at offset 5"),
        // Arrays of scalars take a fast path, nested ones the stack: the same errors either way.
        ([1, 0x08, 2, 0x05, 0x01, 0xFF, 0x00], "invalid UTF-8 in string at offset 4"),
        ([1, 0x08, 2, 0x00, 0x3F], "unknown value tag 0x3f at offset 4"),
        ([1, 0x08, 2, 0x08, 0x01, 0x00, 0x0A, 0x01, 0x61], "invalid reference: a record reference is KIND/ID, with a '/' at offset 7"),
        ([1, 0x08, 1, 0x00, 0x00], "1 trailing bytes after the value at offset 4"),
        ([1, 0x0A, 3, 0x61, 0x62, 0x63], "invalid reference: a record reference is KIND/ID, with a '/' at offset 2"),
        ([1, 0x0A, 2, 0x61, 0x2F], "invalid reference: the id is empty at offset 2"),
    ] as [([UInt8], String)])
    func reportsTheProblemAndItsOffset(bytes: [UInt8], message: String) {
        #expect {
            try ValueCodec.decode(bytes)
        } throws: { error in
            (error as? ValueDecodingError)?.description == message
        }
    }

    @Test func limitsNesting() throws {
        let deepest = ValueSamples.nested(ByteReader.maxDepth)
        #expect(try ValueCodec.decode(ValueCodec.encode(deepest)) == deepest)
        let tooDeep = ValueCodec.encode(ValueSamples.nested(ByteReader.maxDepth + 1))
        #expect(throws: ValueDecodingError.self) { try ValueCodec.decode(tooDeep) }
        // Nested dictionaries count too.
        let dictionaries = (0 ..< ByteReader.maxDepth + 1).reduce(Value.null) { inner, _ in ["k": inner] }
        #expect(throws: ValueDecodingError.self) { try ValueCodec.decode(ValueCodec.encode(dictionaries)) }
    }

    @Test func rejectsKeysThatAreCanonicallyEquivalent() {
        // "e\u{301}" and "é" differ in bytes but are equal Strings: a Dictionary cannot hold both.
        let first: [UInt8] = [0x65, 0xCC, 0x81]
        let second: [UInt8] = [0xC3, 0xA9]
        var bytes: [UInt8] = [1, 0x09, 2, 0, 0, 0, 0, 5, 0, 0, 0, 9, 0, 0, 0]
        bytes += [3] + first + [0x00] + [2] + second + [0x00]
        #expect {
            try ValueCodec.decode(bytes)
        } throws: { error in
            (error as? ValueDecodingError)?.problem.hasPrefix("duplicate key") == true
        }
    }
}
