import Foundation
import KVStore
import Testing
import TestSupport

/// The journal stream's position frame: the source's last sequence, sent by a journal server
/// between commits so that a replica knows its lag.
@Suite struct PositionFrameTests {
    /// An open-ended stream of `source`'s journal with a position frame saying `position` after
    /// the header, and `extra` appended after it.
    private func stream(of source: Store, position: UInt64, extra: [UInt8] = []) throws -> [UInt8] {
        var bytes: [UInt8] = []
        let writer = try JournalStreamWriter(header: JournalStreamHeader(storeID: source.id, firstSequence: 1, lastSequence: nil)) { bytes += $0 }
        try writer.endBatch()
        bytes += JournalStream.positionFrame(lastSequence: position) + extra
        for entry in try source.journalEntries() { try writer.append(entry) }
        try writer.finish()
        return bytes
    }

    @Test func aReaderTakesThePositionAsTheSourcesLastSequence() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(3, into: source)
        let reader = try JournalStreamReader(bytes: stream(of: source, position: 40))
        #expect(reader.sourceLastSequence == nil)

        var entries = 0
        while let commit = try reader.nextCommit() { entries += commit.count }

        #expect(entries == 3)
        #expect(reader.sourceLastSequence == 40)
    }

    @Test func applyingSavesThePositionWithTheCheckpoint() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(3, into: source)
        let replica = try directory.store("replica")

        try replica.applyJournal(JournalStreamReader(bytes: stream(of: source, position: 40)))

        let status = try #require(try replica.read { try $0.replicationSources() }.first)
        #expect(status.appliedSequence == 3 && status.sourceLastSequence == 40 && status.lag == 37)
    }

    @Test func aPositionFrameOfTheWrongSizeIsRefused() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitItems(1, into: source)
        var bad: [UInt8] = []
        [UInt8](repeating: 0, count: 7).withUnsafeBytes { JournalStream.appendFrame(type: 0x50, payload: $0, to: &bad) }
        let reader = try JournalStreamReader(bytes: stream(of: source, position: 1, extra: bad))

        let error = #expect(throws: JournalStreamError.self) { while try reader.nextCommit() != nil {} }

        #expect(error?.code == .malformed)
        #expect(error?.description == "journal stream: frame 3 at byte 69 is a position frame of 7 bytes, not 8")
    }
}
