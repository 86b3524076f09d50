import Foundation
import Testing
@testable import KVStore

/// The source's error frame (`x`): it ends the stream with the source's message; the whole commits
/// before it are applied, a commit it cuts is not.
@Suite struct JournalStreamErrorFrameTests {
    let source: TemporaryStore

    init() throws {
        source = try TemporaryStore()
        try fillWithEveryChange(source.store)   // commits: entry 1, entry 2, entries 3…6, …
    }

    /// Entries 1 and 2 (two whole commits), entries 3 and 4 of the commit of 3…6, then the error
    /// frame `message`.
    func streamFailingInsideTheThirdCommit(_ message: String, mayRetry: Bool = false) throws -> [UInt8] {
        var bytes: [UInt8] = []
        let writer = try JournalStreamWriter(header: JournalStreamHeader(storeID: source.store.id, firstSequence: 1, lastSequence: nil)) { bytes += $0 }
        try source.store.appendJournal(from: 1, through: 2, to: writer)
        let entries = try source.store.journalEntries(from: 3, limit: 2)
        #expect(entries.allSatisfy { $0.commitID == entries[0].commitID })
        for entry in entries { try writer.append(entry) }
        try writer.fail(message, mayRetry: mayRetry)
        try writer.fail("a second error frame is not written")
        return bytes
    }

    @Test func theCommitsBeforeTheErrorFrameAreAppliedAndTheCutOneIsNot() throws {
        let bytes = try streamFailingInsideTheThirdCommit("journal truncated past 2: the disk is gone")
        let replica = try TemporaryStore()

        #expect(performing: { try apply(bytes, to: replica.store) }, throws: { error in
            (error as? JournalStreamError)?.code == .sourceFailed
                && "\(error)" == "journal stream: the source stopped the stream: journal truncated past 2: the disk is gone"
        })

        #expect(try replica.store.read { try $0.replicationCheckpoint(for: source.store.id) } == 2)
        let ada = try #require(try replica.store.record(RecordRef("person/ada")))
        #expect(ada["name"] == "Ada")   // entry 3 (of the cut commit) set "Ada Lovelace"
        #expect(try replica.store.record(RecordRef("person/bob")) != nil)
    }

    @Test func theReaderHandsOutTheWholeCommitsThenTheSourcesMessageAsOneLine() throws {
        let bytes = try streamFailingInsideTheThirdCommit("cursor expired\nentries 3 through 5 are gone", mayRetry: true)
        let reader = try JournalStreamReader(bytes: bytes)
        #expect(try reader.nextCommit()?.map(\.sequence) == [1])
        #expect(try reader.nextCommit()?.map(\.sequence) == [2])
        #expect(performing: { try reader.nextCommit() }, throws: { error in
            (error as? JournalStreamError)?.code == .sourceInterrupted
                && (error as? JournalStreamError)?.message == "the source stopped the stream: cursor expired entries 3 through 5 are gone"
        })
    }

    @Test func aCorruptErrorFrameFailsItsChecksumAndOneWithoutAKindIsMalformed() throws {
        let bytes = try streamFailingInsideTheThirdCommit("the disk is gone")
        let offsets = JournalStreamTests.frameOffsets(bytes)
        let last = try #require(offsets.last)
        #expect(bytes[last + 4] == UInt8(ascii: "x"))
        var corrupt = bytes
        corrupt[last + 8] ^= 0x20
        #expect(performing: { try JournalStreamTests.readAll(corrupt) }, throws: streamError(.checksumMismatch, "frame \(offsets.count) at byte \(last)"))

        let kindless = Array(bytes[..<last]) + JournalStreamTests.frame(UInt8(ascii: "x"), [7] + Array("no such kind".utf8))
        #expect(performing: { try JournalStreamTests.readAll(kindless) }, throws: streamError(.malformed, "frame \(offsets.count) at byte \(last) is an error frame without a kind"))
    }

    @Test func anExportThatFailsMidStreamEndsItWithTheErrorFrame() throws {
        let entries = try source.store.journalEntries()
        // Entry 4's bytes stored as entry 3: the export fails there, after two whole commits.
        try source.store.environment.write { txn in
            try txn.put(StoreLayout.sequenceKey(3), JournalCodec.encode(entries[3]), in: source.store.databases.journal)
        }
        var bytes: [UInt8] = []
        #expect(throws: StoreError.self) { try source.store.exportJournal { bytes += $0 } }
        let replica = try TemporaryStore()

        #expect(performing: { try apply(bytes, to: replica.store) }, throws: streamError(.sourceFailed, "the source stopped the stream: journal entry 3 is corrupt: it says it is entry 4"))
        // Entry 2's commit frame was not written yet when entry 3 failed (the writer closes a
        // commit when the next one begins): the error frame cuts it, so only entry 1 is applied.
        #expect(try replica.store.read { try $0.replicationCheckpoint(for: source.store.id) } == 1)
    }

    @Test func aWriterWhoseOutputFailedWritesNoErrorFrame() throws {
        struct Gone: Error {}
        var calls = 0
        let writer = try JournalStreamWriter(header: JournalStreamHeader(storeID: source.store.id, firstSequence: 1, lastSequence: nil)) { _ in
            calls += 1
            throw Gone()
        }
        #expect(throws: Gone.self) { try writer.endBatch() }
        try writer.fail("unheard")
        #expect(calls == 1)
    }

    /// The example of JournalStreamWriter.fail(_:mayRetry:).
    @Test func docExampleOfFail() throws {
        let header = JournalStreamHeader(storeID: source.store.id, firstSequence: 1, lastSequence: 3)
        let entries = try source.store.journalEntries(from: 1, limit: 4)   // one too many
        var bytes: [UInt8] = []
        let writer = try JournalStreamWriter(header: header) { bytes += $0 }
        do {
            for entry in entries { try writer.append(entry) }
            try writer.finish()
        } catch {
            try writer.fail("\(error)")   // the reader throws `sourceFailed` with this message
        }
        #expect(performing: { try JournalStreamTests.readAll(bytes) }, throws: streamError(.sourceFailed, "the source stopped the stream: journal stream: entry 4 is past the header's last sequence 3"))
    }
}
