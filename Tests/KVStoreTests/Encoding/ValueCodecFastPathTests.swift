import Foundation
import Testing
@testable import KVStore

/// The decoder's fast paths — references of printable ASCII, short ASCII strings, arrays of
/// scalars — give what the general paths give: the same values, the same errors at the same offsets.
@Suite struct ValueCodecFastPathTests {
    /// A tagged value's bytes: version, tag, one-byte length, payload.
    static func encoded(_ tag: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [1, tag]
        ValueCodec.appendVarint(UInt64(payload.count), to: &bytes)
        return bytes + payload
    }

    static let kind64 = "k" + String(repeating: "x", count: 63)

    @Test("a reference decodes as RecordRef(text) makes it, or fails with its problem", arguments: [
        "item/1", "item/a/b", "a-b.c/x", "_k/ ", "A9/~", "feed/f07", kind64 + "/x", kind64 + "x/x",
        "item/" + String(repeating: "i", count: 506), "item/" + String(repeating: "i", count: 507),
        "9item/1", "-item/1", "it em/1", "item/", "/1", "item", "item/a\u{7F}", "item/a\tb", "item/café", "item/cafe\u{301}",
        "kïnd/1", "item/\u{85}",
    ])
    func references(text: String) throws {
        let bytes = Self.encoded(ValueCodec.Tag.reference, Array(text.utf8))
        do {
            let ref = try RecordRef(text)
            let decoded = try ValueCodec.decode(bytes)
            #expect(decoded == .reference(ref))
            guard case .reference(let got) = decoded else { return }
            #expect(Array(got.kind.utf8) == Array(ref.kind.utf8) && Array(got.id.utf8) == Array(ref.id.utf8))
        } catch let error as RecordRefError {
            #expect(throws: ValueDecodingError(offset: 2, problem: "invalid reference: \(error.problem)")) { try ValueCodec.decode(bytes) }
        }
    }

    @Test("a reference that is not UTF-8 is refused as before")
    func invalidUTF8Reference() {
        for payload: [UInt8] in [[0x61, 0x2F, 0xFF], [0xC3, 0x2F, 0x61], [0x61, 0x2F, 0xED, 0xA0, 0x80]] {
            #expect(throws: ValueDecodingError(offset: 2, problem: "invalid UTF-8 in reference")) {
                try ValueCodec.decode(Self.encoded(ValueCodec.Tag.reference, payload))
            }
        }
    }

    @Test("strings and keys around the small-string length, ASCII or not, valid or not", arguments: [0, 1, 14, 15, 16, 17, 40])
    func stringLengths(length: Int) throws {
        let ascii = String(repeating: "a", count: length)
        for text in [ascii, ascii + "é", "é" + ascii, ascii + "\u{0}", ascii + "\u{7F}"] {
            #expect(try ValueCodec.decode(Self.encoded(ValueCodec.Tag.string, Array(text.utf8))) == .string(text))
            let record: [String: Value] = [text: .string(text), "k": .int(1)]
            #expect(try RecordCodec.decode(RecordCodec.encode(record)) == record)
        }
        for bad: [UInt8] in [[0xFF], [0xC3], [0xED, 0xA0, 0x80]] {
            #expect(throws: ValueDecodingError(offset: 2, problem: "invalid UTF-8 in string")) {
                try ValueCodec.decode(Self.encoded(ValueCodec.Tag.string, Array(ascii.utf8) + bad))
            }
        }
    }

    @Test("arrays of scalars and arrays holding containers", arguments: [
        [], ["a", 1, 2.5, true, .null], [["a"], "b"], ["a", ["k": 1]], [[], [[]]], ["x", .reference(try! RecordRef("item/1")), .bytes(Data([0]))],
    ] as [[Value]])
    func arrays(elements: [Value]) throws {
        let value = Value.array(elements)
        #expect(try ValueCodec.decode(ValueCodec.encode(value)) == value)
        #expect(try ValueCodec.decode(ValueCodec.encode(["tags": value])) == ["tags": value])
    }
}
