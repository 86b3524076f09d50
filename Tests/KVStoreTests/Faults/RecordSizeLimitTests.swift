import Foundation
import Testing
@testable import KVStore

/// The store holds nothing its journal streams cannot carry: a record fits in a stream frame with
/// room for its entry, and one change's entry (old and new value) fits in a frame. Writes past
/// either limit fail with `tooLarge` and write nothing.
@Suite(.serialized) struct RecordSizeLimitTests {
    let t: TemporaryStore
    let doc = ref("doc/1")
    static let limit = KeyValueCodingError.maximumRecordSize

    init() throws {
        t = try TemporaryStore()
    }

    /// A record `["blob": bytes]` whose encoding takes exactly `size` bytes.
    static func record(encodedSize size: Int) -> [String: Value] {
        var count = size
        while true {
            let record: [String: Value] = ["blob": .bytes(Data(count: count))]
            let encoded = RecordCodec.encode(record).count
            if encoded == size { return record }
            count += size - encoded
        }
    }

    private func expectNothingChanged(records: Int, entries: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try t.store.count(ofKind: "doc") == records, sourceLocation: sourceLocation)
        #expect(try t.store.journalEntries().count == entries, sourceLocation: sourceLocation)
        #expect(try t.store.verify().isHealthy, sourceLocation: sourceLocation)
    }

    @Test func aRecordAtTheLimitIsStoredExportedAndReplicated() throws {
        try t.store.insert(Self.record(encodedSize: Self.limit), as: doc)
        var stream: [UInt8] = []
        try t.store.exportJournal(since: 1) { stream += $0 }
        let replica = try TemporaryStore()
        try replica.store.applyJournal(JournalStreamReader(bytes: stream))
        #expect(try replica.store.value(forKey: "blob", of: doc) == Self.record(encodedSize: Self.limit)["blob"])
        // Deleting it journals the whole record as the old value: that entry fits too.
        try t.store.write { [doc] txn in try txn.delete(doc) }
        try t.store.exportJournal(since: 2) { _ in }
    }

    @Test func insertingARecordPastTheLimitWritesNothing() throws {
        let error = #expect(throws: KeyValueCodingError.self) {
            try t.store.insert(Self.record(encodedSize: Self.limit + 1), as: doc)
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.description.contains("\(Self.limit)") == true)
        try expectNothingChanged(records: 0, entries: 0)
    }

    @Test func aSetGrowingTheRecordPastTheLimitWritesNothing() throws {
        try t.store.insert(Self.record(encodedSize: Self.limit - 100), as: doc)
        let error = #expect(throws: KeyValueCodingError.self) {
            try t.store.setValue(.bytes(Data(count: 200)), forKey: "more", of: doc)
        }
        #expect(error?.code == .tooLarge && error?.keyPath == "more")
        try expectNothingChanged(records: 1, entries: 1)
        #expect(try t.store.value(forKey: "more", of: doc) == nil)
    }

    /// Replacing a 40 MiB value with another: each record fits, but the entry holding both values
    /// would not. Refused, and the transaction cannot commit even when the caller catches it.
    @Test func aChangeWhoseEntryWouldNotFitAFrameIsRefusedEvenWhenCaught() throws {
        let size = 40 << 20
        try t.store.insert(["blob": .bytes(Data(repeating: 1, count: size))], as: doc)
        let error = #expect(throws: KeyValueCodingError.self) {
            try t.store.setValue(.bytes(Data(repeating: 2, count: size)), forKey: "blob", of: doc)
        }
        #expect(error?.code == .tooLarge && error?.description.contains("journal entry") == true)
        #expect(throws: KeyValueCodingError.self) {
            try t.store.write { [doc] txn in
                _ = try? txn.setValue(.bytes(Data(repeating: 3, count: size)), forKey: "blob", of: doc)
            }
        }
        try expectNothingChanged(records: 1, entries: 1)
        #expect(try t.store.value(forKey: "blob", of: doc) == .bytes(Data(repeating: 1, count: size)))
        // In two steps each entry fits, and the journal exports whole.
        try t.store.removeValue(forKey: "blob", of: doc)
        try t.store.setValue(.bytes(Data(repeating: 2, count: size)), forKey: "blob", of: doc)
        var frames = 0
        try t.store.exportJournal(since: 1) { _ in frames += 1 }
        #expect(try t.store.journalEntries().count == 3)
    }
}
