import Foundation
import Testing
import TestSupport
@testable import KVStore

/// The framed stream: what the writer writes, the reader reads back, and every way a stream can
/// be wrong, each refused with the problem and where it is.
@Suite struct JournalStreamTests {
    let source: TemporaryStore

    init() throws {
        source = try TemporaryStore()
        try fillWithEveryChange(source.store)
    }

    /// One frame: length, type, payload, CRC-32 of type and payload.
    static func frame(_ type: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        appendInteger(UInt32(payload.count), to: &bytes)
        bytes.append(type)
        bytes += payload
        appendInteger(CRC32.checksum([type] + payload), to: &bytes)
        return bytes
    }

    /// The byte offsets of the frames of a stream (after the magic and version).
    static func frameOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var at = 10
        while at < bytes.count {
            offsets.append(at)
            at += 9 + Int(integer(UInt32.self, bytes, at: at))
        }
        return offsets
    }

    static func readAll(_ bytes: [UInt8]) throws -> [[JournalEntry]] {
        let reader = try JournalStreamReader(bytes: bytes)
        var commits: [[JournalEntry]] = []
        while let commit = try reader.nextCommit() { commits.append(commit) }
        return commits
    }

    @Test func readsBackEveryEntryGroupedByCommit() throws {
        let bytes = try exported(source.store)
        let reader = try JournalStreamReader(bytes: bytes)
        #expect(reader.header == JournalStreamHeader(storeID: source.store.id, firstSequence: 1, lastSequence: try source.store.read { try $0.lastSequence() }))
        var commits: [[JournalEntry]] = []
        while let commit = try reader.nextCommit() { commits.append(commit) }
        let journal = try source.store.journalEntries()
        #expect(commits.flatMap { $0 } == journal)
        #expect(commits.map { $0[0].commitID } == Array(Set(journal.map(\.commitID))).sorted())
        #expect(commits.allSatisfy { commit in commit.allSatisfy { $0.commitID == commit[0].commitID } })
        #expect(try reader.nextCommit() == nil)
    }

    @Test func sinceStartsTheStreamThereAndAnEmptyRangeIsAnEmptyStream() throws {
        let last = try source.store.read { try $0.lastSequence() }
        let tail = try JournalStreamReader(bytes: exported(source.store, since: 3))
        #expect(tail.header.firstSequence == 3 && tail.header.lastSequence == last)
        #expect(try Self.readAll(exported(source.store, since: 3)).flatMap { $0 } == source.store.journalEntries(from: 3))
        let empty = try JournalStreamReader(bytes: exported(source.store, since: last + 1))
        #expect(empty.header.firstSequence == last + 1 && empty.header.lastSequence == last)
        #expect(try empty.nextCommit() == nil)
    }

    @Test func anOpenEndedStreamTakesBatchAfterBatch() throws {
        var bytes: [UInt8] = []
        let writer = try JournalStreamWriter(header: JournalStreamHeader(storeID: source.store.id, firstSequence: 1, lastSequence: nil)) { bytes += $0 }
        try source.store.appendJournal(from: 1, through: 2, to: writer)
        let firstBatch = bytes.count
        try source.store.appendJournal(from: 3, through: 6, to: writer)
        try writer.finish()
        #expect(firstBatch > 0 && bytes.count > firstBatch)
        let reader = try JournalStreamReader(bytes: bytes)
        #expect(reader.header.lastSequence == nil)
        #expect(try Self.readAll(bytes).flatMap { $0 } == source.store.journalEntries(from: 1, limit: 6))
    }

    @Test func theWriterRefusesEntriesOutOfSequence() throws {
        let entries = try source.store.journalEntries()
        let writer = try JournalStreamWriter(header: JournalStreamHeader(storeID: UUID(), firstSequence: 1, lastSequence: nil)) { _ in }
        try writer.append(entries[0])
        #expect(performing: { try writer.append(entries[2]) }, throws: streamError(.gap))
        #expect(performing: { try writer.append(entries[0]) }, throws: streamError(.outOfOrder))
    }

    @Test func exportRefusesAnEntryStoredUnderAnotherSequenceAndTheReaderAMisshapenOne() throws {
        let entries = try source.store.journalEntries()
        func corruptEntry(_ sequence: UInt64, storing entry: JournalEntry) throws {
            try source.store.environment.write { txn in
                try txn.put(StoreLayout.sequenceKey(sequence), JournalCodec.encode(entry), in: source.store.databases.journal)
            }
        }
        func corrupt(_ text: String) -> @Sendable (any Error) -> Bool {
            { error in (error as? StoreError)?.code == .corrupt && "\(error)".contains(text) }
        }
        // Entry 3's bytes stored as entry 2: they decode, but are not entry 2.
        try corruptEntry(2, storing: entries[2])
        #expect(performing: { try exported(source.store) }, throws: corrupt("journal entry 2 is corrupt: it says it is entry 3"))
        // A record insertion whose new value is not a dictionary: export ships entries as stored
        // (it checks only that each is the entry its key names), and the reader refuses it
        // before anything is applied.
        var inserted = try #require(entries.first { $0.change == .recordInserted })
        inserted.newValue = 5
        try corruptEntry(2, storing: entries[1])
        try corruptEntry(inserted.sequence, storing: inserted)
        let stream = try exported(source.store)
        let replica = try TemporaryStore()
        #expect(performing: { try apply(stream, to: replica.store) }, throws: streamError(.undecodableEntry, "a record insertion whose new value is not a dictionary"))
        #expect(try replica.store.journalEntries().isEmpty)
    }

    @Test func badMagicAndNewerFormatsAreRefused() throws {
        #expect(performing: { try JournalStreamReader(bytes: Array("{\"kind\":\"person\"}\n".utf8)) }, throws: streamError(.badMagic))
        #expect(performing: { try JournalStreamReader(bytes: []) }, throws: streamError(.badMagic))
        var newer = try exported(source.store)
        newer[8] = 2
        #expect(performing: { try JournalStreamReader(bytes: newer) }, throws: streamError(.newerFormat, "format 2"))
    }

    @Test func formatVersionZeroIsRefused() throws {
        var zero = try exported(source.store)
        zero[8] = 0   // the version is outside every frame: no checksum covers it
        #expect(performing: { try JournalStreamReader(bytes: zero) }, throws: streamError(.malformed, "format version 0"))
    }

    @Test func aFlippedByteFailsItsFramesChecksum() throws {
        let bytes = try exported(source.store)
        let offsets = Self.frameOffsets(bytes)
        var corrupt = bytes
        corrupt[offsets[3] + 20] ^= 0x40
        #expect(performing: { try Self.readAll(corrupt) }, throws: streamError(.checksumMismatch, "frame 4 at byte \(offsets[3])"))
    }

    @Test func aStreamCutShortIsRefusedAndYieldsNoPartialCommit() throws {
        let bytes = try exported(source.store)
        let offsets = Self.frameOffsets(bytes)
        // Cut inside a frame, and cut cleanly between frames (inside the commit of several entries).
        for cut in [offsets[1] + 3, offsets[4], bytes.count - 1, 5] {
            #expect(throws: JournalStreamError.self) { try Self.readAll(Array(bytes[..<cut])) }
        }
        let reader = try JournalStreamReader(bytes: Array(bytes[..<offsets[5]]))
        var commits: [[JournalEntry]] = []
        #expect(performing: { while let c = try reader.nextCommit() { commits.append(c) } }, throws: streamError(.truncated))
        #expect(commits.allSatisfy { commit in try! source.store.journalEntries().filter { $0.commitID == commit[0].commitID } == commit })
    }

    @Test func aHugeLengthIsRefusedWithoutAllocatingIt() throws {
        var bytes = Array(try exported(source.store)[..<Self.frameOffsets(try exported(source.store))[1]])
        appendInteger(UInt32.max, to: &bytes)
        bytes += [0x45, 1, 2, 3]
        #expect(performing: { try Self.readAll(bytes) }, throws: streamError(.frameTooLarge, "frame too large"))
    }

    /// A stream assembled frame by frame from the source's entries.
    func stream(header first: UInt64 = 1, last: UInt64? = nil, _ frames: [[UInt8]]) -> [UInt8] {
        var bytes = JournalStream.magic + [1, 0]
        var header: [UInt8] = withUnsafeBytes(of: source.store.id.uuid, Array.init)
        appendInteger(first, to: &header)
        appendInteger(last ?? 0, to: &header)
        header.append(last == nil ? 1 : 0)
        bytes += Self.frame(0x48, header)
        for frame in frames { bytes += frame }
        return bytes
    }

    func entryFrame(_ sequence: UInt64) throws -> [UInt8] {
        let entry = try #require(try source.store.journalEntries(from: sequence, limit: 1).first)
        return Self.frame(0x45, JournalCodec.encode(entry))
    }

    func commitFrame(_ commit: UInt64, _ count: UInt32) -> [UInt8] {
        var payload: [UInt8] = []
        appendInteger(commit, to: &payload)
        appendInteger(count, to: &payload)
        return Self.frame(0x43, payload)
    }

    @Test func gapsDuplicatesAndUndecodableEntriesAreRefusedWithTheirFrame() throws {
        let gap = stream([try entryFrame(1), commitFrame(1, 1), try entryFrame(3)])
        #expect(performing: { try Self.readAll(gap) }, throws: streamError(.gap, "frame 4"))
        let duplicate = stream([try entryFrame(1), commitFrame(1, 1), try entryFrame(1)])
        #expect(performing: { try Self.readAll(duplicate) }, throws: streamError(.outOfOrder, "frame 4"))
        let wrongStart = stream(header: 2, [try entryFrame(1)])
        #expect(performing: { try Self.readAll(wrongStart) }, throws: streamError(.outOfOrder, "frame 2"))
        let garbage = stream([Self.frame(0x45, [1, 0xFF, 0xFF, 7])])
        #expect(performing: { try Self.readAll(garbage) }, throws: streamError(.undecodableEntry, "frame 2"))
        let unknownType = stream([Self.frame(0x51, [])])
        #expect(performing: { try Self.readAll(unknownType) }, throws: streamError(.malformed, "unknown type"))
        let wrongCount = stream([try entryFrame(1), commitFrame(1, 2)])
        #expect(performing: { try Self.readAll(wrongCount) }, throws: streamError(.malformed, "frame 3"))
    }

    @Test func anOpenEndedHeaderStartingAtSequenceZeroIsRefused() throws {
        var end: [UInt8] = []
        appendInteger(UInt64(0), to: &end)
        appendInteger(UInt64(0), to: &end)
        let bytes = stream(header: 0, [Self.frame(0x5A, end)])
        #expect(performing: { try Self.readAll(bytes) }, throws: streamError(.malformed, "frame 1"))
    }

    /// An entry whose every field decodes but whose key path or record keys no store could have
    /// journaled (it would store a key no key path can name) is refused before anything applies.
    @Test func entriesWithKeysNoKeyPathCanNameAreRefused() throws {
        let ada = ref("person/ada")
        func entry(_ change: ChangeKind, keyPath: String?, new: Value?, indexes: [Int]? = nil) -> JournalEntry {
            JournalEntry(
                sequence: 1, commitID: 1, timestamp: Date(), origin: nil, ref: ada, keyPath: keyPath,
                change: change, oldValue: nil, newValue: new, indexes: indexes, isDerived: false)
        }
        let bad = [
            entry(.setting, keyPath: "", new: 1),
            entry(.setting, keyPath: "@count", new: 1),
            entry(.setting, keyPath: "address..city", new: 1),
            entry(.setting, keyPath: nil, new: 1),
            entry(.insertion, keyPath: "tags.x", new: [1], indexes: [0]),
            entry(.insertion, keyPath: "tags", new: [1], indexes: nil),
            entry(.insertion, keyPath: "tags", new: [1, 2], indexes: [0]),
            entry(.replacement, keyPath: "tags", new: 1, indexes: [0]),
            entry(.recordInserted, keyPath: nil, new: ["a.b": 1]),
            entry(.recordInserted, keyPath: nil, new: 1),
        ]
        for entry in bad {
            let bytes = stream([Self.frame(0x45, JournalCodec.encode(entry)), commitFrame(1, 1)])
            #expect("\(entry.change) \(entry.keyPath ?? "-")", performing: { try Self.readAll(bytes) },
                    throws: streamError(.undecodableEntry, "frame 2"))
        }
    }

    @Test func theEndFrameMustCountTheEntriesAndBeLast() throws {
        var end: [UInt8] = []
        appendInteger(UInt64(5), to: &end)
        appendInteger(UInt64(1), to: &end)
        let wrongTotal = stream([try entryFrame(1), commitFrame(1, 1), Self.frame(0x5A, end)])
        #expect(performing: { try Self.readAll(wrongTotal) }, throws: streamError(.malformed, "says 5 entries"))
        let complete = try exported(source.store)
        #expect(performing: { try Self.readAll(complete + [0]) }, throws: streamError(.malformed, "bytes follow the end frame"))
        let short = stream(last: 9, [try entryFrame(1), commitFrame(1, 1), Self.frame(0x5A, [1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])])
        #expect(performing: { try Self.readAll(short) }, throws: streamError(.truncated, "before the header's last sequence 9"))
    }

    @Test func readsFromAFileDescriptorInChunks() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("stream")
        let bytes = try exported(source.store)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let reader = try JournalStreamReader(fileDescriptor: handle.fileDescriptor)
        var entries: [JournalEntry] = []
        while let commit = try reader.nextCommit() { entries += commit }
        #expect(entries == (try source.store.journalEntries()))
    }
}
