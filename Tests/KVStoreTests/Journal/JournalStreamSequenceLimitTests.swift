import Foundation
@testable import KVStore
import Testing

/// A stream whose entries reach the largest sequence is refused with one error, not a crash.
@Suite struct JournalStreamSequenceLimitTests {
    @Test func anEntryAfterTheLargestSequenceIsRefused() throws {
        let store = try TemporaryStore()
        try store.store.insert(["n": .int(1)], as: RecordRef("item/1"))
        var entry = try #require(try store.store.journalEntries().first)
        entry.sequence = .max
        var bytes = JournalStream.magic + [UInt8(JournalStream.formatVersion & 0xFF), UInt8(JournalStream.formatVersion >> 8)]
        var header: [UInt8] = withUnsafeBytes(of: UUID().uuid, Array.init)
        appendInteger(UInt64.max, to: &header)
        appendInteger(UInt64(0), to: &header)
        header.append(JournalStream.openEndedFlag)
        header.withUnsafeBytes { JournalStream.appendFrame(type: JournalStream.FrameType.header.rawValue, payload: $0, to: &bytes) }
        for _ in 0..<2 {
            JournalCodec.encode(entry).withUnsafeBytes { JournalStream.appendFrame(type: JournalStream.FrameType.entry.rawValue, payload: $0, to: &bytes) }
        }
        let reader = try JournalStreamReader(bytes: bytes)

        let error = #expect(throws: JournalStreamError.self) { while try reader.nextCommit() != nil {} }

        #expect(error?.code == .malformed)
        #expect(error?.description.contains("no entry can follow entry 18446744073709551615") == true)
    }
}
