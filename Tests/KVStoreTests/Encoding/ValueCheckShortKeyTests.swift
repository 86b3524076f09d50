import Foundation
import Testing
@testable import KVStore

/// The record check's short-key path (keys of 8 bytes or fewer ordered through one packed word,
/// zero padding against NUL bytes) and its inlined scalars (an int's varint judged shortest by its
/// last byte): everything the decoder refuses is still refused, every canonical record still
/// vouched for — each case checked against the decoder by ``ValueCheckDifferentialTests/compare(_:sourceLocation:)``.
@Suite struct ValueCheckShortKeyTests {
    typealias Piece = EncodingPieces
    static let one = Piece.tagged(.int(1))

    static func record(_ keys: [[UInt8]]) -> [UInt8] {
        Piece.dictionary(keys.map { Piece.entry($0, one) })
    }

    @Test(arguments: [
        [[0x61, 0x00], [0x61]],                          // "a\0" before "a": a word tie, the longer first
        [[0x61], [0x61]],                                // a duplicate one-byte key
        [Array("abcdefgh".utf8), Array("abcdefgh".utf8)],  // a duplicate of 8 bytes
        [Array("abcdefgh\u{0}".utf8), Array("abcdefgh".utf8)],  // 9 bytes (the general compare), then 8
        [Array("abcdefgi".utf8), Array("abcdefgh".utf8)],
        [[0x00, 0x00], [0x00]],
        [[0x62], [0x61, 0x7F]],
    ] as [[[UInt8]]])
    func keysOutOfOrderOrDuplicatedAreRefused(_ keys: [[UInt8]]) {
        let tagged = Self.record(keys)
        #expect(!ValueCheckDifferentialTests.compare(tagged))
        #expect(throws: ValueDecodingError.self) { try ValueCheckDifferentialTests.decodeRecordInEntry(tagged) }
    }

    @Test(arguments: [
        [[0x61], [0x61, 0x00]],
        [[0x00], [0x00, 0x00], [0x01]],
        [Array("abcdefg".utf8), Array("abcdefgh".utf8), Array("abcdefgh\u{0}".utf8), Array("abcdefgha".utf8)],
        [Array("k1".utf8), Array("k10".utf8), Array("k2".utf8), Array("~".utf8)],
    ] as [[[UInt8]]])
    func keysInByteOrderPassThrough(_ keys: [[UInt8]]) {
        #expect(ValueCheckDifferentialTests.compare(Self.record(keys)))
    }

    @Test func nonASCIIShortKeysAreLeftToTheDecoder() {
        #expect(!ValueCheckDifferentialTests.compare(Self.record([[0x61], [0xC3, 0xA9]])))
        #expect(!ValueCheckDifferentialTests.compare(Self.record([[0x61], Array("abcdefghé".utf8)])))
    }

    @Test func intsAreVouchedForOnlyInTheirShortestForm() {
        for value in [Int64(0), 63, 64, -65, 1 << 20, .max, .min] {
            let zigZag = ValueCodec.zigZag(value)
            let shortest = Piece.dictionary([Piece.entry(Array("n".utf8), [ValueCodec.Tag.int] + Piece.varint(zigZag))])
            #expect(ValueCheckDifferentialTests.compare(shortest), "\(value)")
            let length = Piece.varint(zigZag).count
            guard length < 10 else { continue }
            let overlong = Piece.dictionary([Piece.entry(Array("n".utf8), [ValueCodec.Tag.int] + Piece.overlong(zigZag, length: length + 1))])
            #expect(!ValueCheckDifferentialTests.compare(overlong), "\(value) in \(length + 1) bytes")
        }
        // Eleven bytes, and a tenth byte past 64 bits: the decoder refuses both.
        for bytes in [[UInt8](repeating: 0x80, count: 10) + [0x00], [UInt8](repeating: 0xFF, count: 9) + [0x02]] {
            let tagged = Piece.dictionary([Piece.entry(Array("n".utf8), [ValueCodec.Tag.int] + bytes)])
            #expect(!ValueCheckDifferentialTests.compare(tagged))
        }
    }
}
