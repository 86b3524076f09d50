import Foundation
import PropertyBased
import Testing
@testable import KVStore

/// The pass-through check (``ValueCheck``, ``RecordCodec/passThroughRecord(_:)``) against the
/// decoder, on generated records of every tag, on random damage to their bytes, and on
/// non-canonical and hostile forms built by hand. The rule: bytes the check vouches for decode,
/// and encoding what they decode to gives the same bytes back (so a replica storing them holds
/// what the old path — decode, then encode — would have written); bytes the decoder refuses the
/// check refuses.
@Suite struct ValueCheckDifferentialTests {
    typealias Piece = EncodingPieces

    /// What the check and the decoder make of `tagged` (a record as a journal entry's `new`
    /// holds it: the dictionary tag, then the keyed dictionary), read inside an entry. Records an
    /// issue when the rule breaks. - Returns: whether the check vouched for all of `tagged`.
    @discardableResult
    static func compare(_ tagged: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        tagged.withUnsafeBytes { buffer in
            var probe = ByteReader(buffer, depth: 1)
            let passed = RecordCodec.passThroughRecord(&probe)
            var reader = ByteReader(buffer, depth: 1)
            let decoded = Result { () throws(ValueDecodingError) in try ValueCodec.decodeTagged(from: &reader) }
            guard let passed else {
                #expect(probe.offset == 0, "the check moved the reader without vouching", sourceLocation: sourceLocation)
                return false
            }
            // What the check took must decode, to a record, and encode back to the same bytes.
            let taken = Array(tagged[..<probe.offset])
            #expect(passed == [ValueCodec.version] + taken.dropFirst(), "\(tagged)", sourceLocation: sourceLocation)
            guard case .success(.dictionary(let record)) = decoded else {
                Issue.record("vouched for, but the decoder says \(decoded): \(tagged)", sourceLocation: sourceLocation)
                return false
            }
            #expect(reader.offset == probe.offset, "\(tagged)", sourceLocation: sourceLocation)
            let hasNull = record.values.contains(where: \.isNull)
            #expect(!hasNull, "a top-level null vouched for: \(tagged)", sourceLocation: sourceLocation)
            #expect(RecordCodec.encode(record) == passed, "not canonical: \(tagged)", sourceLocation: sourceLocation)
            #expect(Piece.tagged(.dictionary(record)) == taken, "\(tagged)", sourceLocation: sourceLocation)
            #expect((try? RecordCodec.decode(passed)) == record, "\(tagged)", sourceLocation: sourceLocation)
            return probe.isAtEnd
        }
    }

    /// ``ValueCheck/skip(_:)`` on any tagged value: what it vouches for decodes and encodes back the same.
    static func compareSkip(_ tagged: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        tagged.withUnsafeBytes { buffer in
            var probe = ByteReader(buffer)
            guard (try? ValueCheck.skip(&probe)) == true else { return }
            var reader = ByteReader(buffer, end: probe.offset)
            let decoded = Result { () throws(ValueDecodingError) in try ValueCodec.decodeTagged(from: &reader) }
            guard case .success(let value) = decoded, reader.isAtEnd else {
                Issue.record("skipped, but the decoder says \(decoded): \(tagged)", sourceLocation: sourceLocation)
                return
            }
            #expect(Piece.tagged(value) == Array(tagged[..<probe.offset]), "not canonical: \(tagged)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Generated

    @Test func generatedRecordsPassThroughAsTheirOwnBytes() async {
        await propertyCheck(count: 150, input: Gen.uint64()) { seed in
            var sampler = ValueSampler(seed: seed, asciiKeysOnly: true)
            let record = sampler.record()
            let tagged = Piece.tagged(.dictionary(record))
            #expect(Self.compare(tagged), "an ASCII-keyed canonical record was not passed through: \(record)")
            Self.compareSkip(tagged)
        }
    }

    @Test func damagedRecordsAreNeverVouchedForUnlessCanonical() async {
        await propertyCheck(count: 100, input: Gen.uint64()) { seed in
            var sampler = ValueSampler(seed: seed, asciiKeysOnly: seed % 2 == 0)
            let tagged = Piece.tagged(.dictionary(sampler.record()))
            for _ in 0 ..< 60 {
                var damaged = sampler.damaged(tagged)
                if sampler.random.below(3) == 0 { damaged = sampler.damaged(damaged) }
                Self.compare(damaged)
                Self.compareSkip(damaged)
            }
        }
    }

    // MARK: By hand

    @Test func keysThatAreDuplicatedUnsortedOrEqualAsStringsAreRefused() throws {
        let one = Piece.tagged(.int(1))
        let cases: [[UInt8]] = [
            Piece.dictionary([Piece.entry(Array("a".utf8), one), Piece.entry(Array("a".utf8), one)]),
            Piece.dictionary([Piece.entry(Array("b".utf8), one), Piece.entry(Array("a".utf8), one)]),
            // "e" + U+0301 and "é": different bytes in byte order, one String (canonical equivalence).
            Piece.dictionary([Piece.entry(Array("e\u{301}".utf8), one), Piece.entry(Array("é".utf8), one)]),
            Piece.dictionary([Piece.entry("n", .int(1)),
                              Piece.entry(Array("x".utf8), Piece.dictionary([Piece.entry(Array("e\u{301}".utf8), one), Piece.entry(Array("é".utf8), one)]))]),
            // A key that is not UTF-8.
            Piece.dictionary([Piece.entry([0xFF], one)]),
        ]
        for tagged in cases {
            #expect(!Self.compare(tagged))
            #expect(throws: ValueDecodingError.self) { try Self.decodeRecordInEntry(tagged) }
        }
        // Non-ASCII keys that are distinct strings decode; the check leaves them to the decoder.
        let accented = Piece.dictionary([Piece.entry("é", .int(1))])
        #expect(!Self.compare(accented))
        #expect(try Self.decodeRecordInEntry(accented) == ["é": 1])
    }

    @Test func trailingBytesAndWrongOffsetsAreRefused() {
        let a = Piece.entry("a", .int(1)), b = Piece.entry("b", .string("xy"))
        let cases: [[UInt8]] = [
            Piece.dictionary([Piece.entry(Array("a".utf8), Piece.tagged(.int(1)) + [0x00])]),   // trailing byte in an entry
            Piece.dictionary([a, b], count: [3], offsets: [0, 5, 3, UInt32(a.count + b.count)]),  // offsets backwards
            Piece.dictionary([a, b], offsets: [1, UInt32(a.count), UInt32(a.count + b.count)]),  // not starting at 0
            Piece.dictionary([a, b], offsets: [0, UInt32(a.count), UInt32(a.count + b.count + 1)]),  // past the end
            Piece.dictionary([a, b], count: [3], offsets: [0, UInt32(a.count), UInt32(a.count), UInt32(a.count + b.count)]),  // an empty entry
            Piece.dictionary([a, b], offsets: [0, UInt32(a.count + 1), UInt32(a.count + b.count)]),  // a value cut, a key shifted
            Piece.dictionary([a, b], count: Piece.varint(.max)),
            Piece.dictionary([a, b], count: Piece.varint(UInt64(Int.max) + 1)),
        ]
        for tagged in cases {
            #expect(!Self.compare(tagged), "\(tagged)")
        }
        // Bytes after the record in its entry: the check takes the record only (the entry's
        // decoder then refuses the entry).
        #expect(!Self.compare(Piece.dictionary([a, b]) + [0x00]))
    }

    @Test func lengthsPastTheBytesOrIntAreRefused() {
        for length: UInt64 in [.max, UInt64(Int.max), UInt64(Int.max) + 1, 1 << 32, 6] {
            for tag in [ValueCodec.Tag.string, ValueCodec.Tag.bytes, ValueCodec.Tag.reference, ValueCodec.Tag.array] {
                let tagged = Piece.dictionary([Piece.entry(Array("a".utf8), [tag] + Piece.varint(length) + Array("a/b".utf8))])
                #expect(!Self.compare(tagged), "\(tag) \(length)")
            }
            let key = Piece.dictionary([Piece.entry(Array("a".utf8), Piece.tagged(.int(1)), keyLength: Piece.varint(length))])
            #expect(!Self.compare(key))
        }
        // Eleven-byte varints and a tenth byte above 1 overflow 64 bits.
        for int in [[UInt8](repeating: 0xFF, count: 10) + [0x01], [UInt8](repeating: 0xFF, count: 9) + [0x02],
                    [UInt8](repeating: 0x80, count: 10) + [0x00]] {
            #expect(!Self.compare(Piece.dictionary([Piece.entry(Array("a".utf8), [ValueCodec.Tag.int] + int)])))
        }
    }

    /// Every varint the decoder reads in a longer form than needed: it decodes, but encoding it
    /// again gives other bytes, so the check must leave it to the decoder.
    @Test func overlongVarintsAreDecodedNotPassedThrough() throws {
        func decodedNotPassed(_ tagged: [UInt8], _ expected: [String: Value], sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(!Self.compare(tagged, sourceLocation: sourceLocation), sourceLocation: sourceLocation)
            #expect(try Self.decodeRecordInEntry(tagged) == expected, sourceLocation: sourceLocation)
        }
        let key = Array("k".utf8)
        for length in 2 ... 10 {
            try decodedNotPassed(Piece.dictionary([Piece.entry(key, [ValueCodec.Tag.int] + Piece.overlong(2, length: length))]), ["k": 1])
            try decodedNotPassed(Piece.dictionary([Piece.entry(key, [ValueCodec.Tag.string] + Piece.overlong(1, length: length) + [0x78])]), ["k": "x"])
            try decodedNotPassed(Piece.dictionary([Piece.entry(key, [ValueCodec.Tag.bytes] + Piece.overlong(1, length: length) + [0x78])]), ["k": .bytes(Data([0x78]))])
            try decodedNotPassed(Piece.dictionary([Piece.entry(key, [ValueCodec.Tag.reference] + Piece.overlong(3, length: length) + Array("a/b".utf8))]), ["k": .reference(ref("a/b"))])
            try decodedNotPassed(Piece.dictionary([Piece.entry(key, [ValueCodec.Tag.array] + Piece.overlong(1, length: length) + [ValueCodec.Tag.true])]), ["k": [true]])
            try decodedNotPassed(Piece.dictionary([Piece.entry(key, Piece.tagged(.int(1)), keyLength: Piece.overlong(1, length: length))]), ["k": 1])
            try decodedNotPassed(Piece.dictionary([Piece.entry(key, Piece.tagged(.int(1)))], count: Piece.overlong(1, length: length)), ["k": 1])
            try decodedNotPassed(Piece.dictionary([Piece.entry(key, Piece.dictionary([], count: Piece.overlong(0, length: length)))]), ["k": [:]])
        }
        // The shortest forms of the widest values pass through.
        for int: Int64 in [.min, .max, -1 << 62, 1 << 62] {
            #expect(Self.compare(Piece.tagged(["k": .int(int)])))
        }
    }

    @Test func scalarsOfEveryFormPassThroughBitForBit() {
        var values: [String: Value] = [
            "nan": .double(.nan), "snan": .double(.signalingNaN), "negnan": .double(Double(bitPattern: 0xFFF8_0000_0000_0001)),
            "negzero": .double(-0.0), "inf": .double(.infinity), "neginf": .double(-.infinity), "sub": .double(Double(bitPattern: 1)),
            "datenan": .date(Date(timeIntervalSinceReferenceDate: .nan)), "datenegzero": .date(Date(timeIntervalSinceReferenceDate: -0.0)),
            "nfc": "é", "nfd": "e\u{301}", "empty": "", "nul": "\u{0}", "emoji": "👩‍👩‍👧", "bytes": .bytes(Data()),
            "combining": .reference(try! RecordRef(kind: "a", id: "\u{301}b")), "slashes": .reference(ref("a/b/c")),
            "emptyArray": [], "emptyDictionary": [:], "nested": [[:], [[]], ["x": .null]],
        ]
        values[""] = .bool(false)
        #expect(Self.compare(Piece.tagged(.dictionary(values))))
        #expect(Self.compare(Piece.tagged([:])))
        // A record whose top level holds a null is decoded (and the null dropped by the applier).
        #expect(!Self.compare(Piece.tagged(["n": .null])))
        // An unknown tag, a reference that is not one, a string that is not UTF-8.
        for value in [[0x0B], [ValueCodec.Tag.reference, 2] + Array("ab".utf8), [ValueCodec.Tag.reference, 2] + Array("1/".utf8),
                      [ValueCodec.Tag.string, 1, 0xC3]] as [[UInt8]] {
            #expect(!Self.compare(Piece.dictionary([Piece.entry(Array("a".utf8), value)])))
            #expect(!Self.compare(Piece.dictionary([Piece.entry(Array("a".utf8), [ValueCodec.Tag.array, 1] + value)])))
        }
    }

    /// A record at the nesting limit in its journal entry passes through; one level deeper, both refuse.
    @Test func nestingAtTheLimitPassesThroughAndPastItIsRefused() throws {
        // In an entry (depth 1) the record is at depth 2: 510 arrays inside it reach the limit.
        for (inner, container) in [(Value.int(1), "array"), (.dictionary([:]), "dictionary")] {
            func nested(_ levels: Int) -> Value {
                var value = inner
                for _ in 0 ..< levels { value = container == "array" ? [value] : ["d": value] }
                return value
            }
            let innermost = container == "array" ? 510 : 509   // an empty dictionary is a level itself
            let atLimit = Piece.tagged(["k": nested(innermost)])
            #expect(Self.compare(atLimit), "\(container)")
            #expect(throws: Never.self) { try Self.decodeRecordInEntry(atLimit) }
            let past = Piece.tagged(["k": nested(innermost + 1)])
            #expect(!Self.compare(past), "\(container)")
            #expect(throws: ValueDecodingError.self) { try Self.decodeRecordInEntry(past) }
        }
    }

    /// The record in `tagged`, decoded as a journal entry's `new` value is, and all of it.
    static func decodeRecordInEntry(_ tagged: [UInt8]) throws -> [String: Value] {
        try tagged.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer, depth: 1)
            let value = try Result { () throws(ValueDecodingError) in try ValueCodec.decodeTagged(from: &reader) }.get()
            guard reader.isAtEnd, case .dictionary(let record) = value else { throw ValueDecodingError(offset: reader.offset, problem: "not one record") }
            return record
        }
    }
}
