import Foundation
import Testing
@testable import KVStore

/// `kind/id` splits at its first '/' byte, as a reference is written (kind, '/', id): an id that
/// starts with a combining mark joins the '/' into one Character, which a search by Characters
/// missed, so such a reference was written but could not be read back.
@Suite struct RecordRefParsingTests {
    @Test func anIdStartingWithACombiningMarkReadsBackAsWritten() throws {
        for id in ["\u{301}b", "\u{301}", "\u{200D}x", "\u{301}/b", "b/\u{301}c"] {
            let written = try RecordRef(kind: "a", id: id)
            let read = try RecordRef(written.description)
            #expect(read.kind == "a" && Array(read.id.utf8) == Array(id.utf8))
            let record = RecordCodec.encode(["link": .reference(written)])
            #expect(try RecordCodec.decode(record) == ["link": .reference(written)])
            #expect(try TypedJSON.value(from: TypedJSON.string(from: .reference(written))) == .reference(written))
        }
    }
}
