import Foundation
import Testing
@testable import KVStore

/// Holes found reviewing the NFC rule for names and the record size limit: each test states what
/// the rule promises and fails while the hole is open.
@Suite(.serialized) struct NormalizationReviewTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    let t: TemporaryStore
    let doc = ref("doc/1")

    init() throws {
        t = try TemporaryStore()
    }

    /// Plants `values` as an older kvstore stored them: under the record key spelled `id` as
    /// given (not in NFC), keys as given, and counted.
    private func plantLegacyRecord(kind: String, id: String, _ entries: [(String, Value)]) throws {
        let key = Array(kind.utf8) + [0] + Array(id.utf8)
        let bytes = UnicodeNormalizationTests.recordBytes(entries)
        try t.store.write { txn in
            try txn.transaction.put(key, bytes, in: txn.databases.records)
            try txn.adjustCount(of: kind, by: 1)
        }
    }

    private func storedKeys(of ref: RecordRef) throws -> [[UInt8]] {
        try t.store.read { txn in
            try txn.transaction.withValue(forKey: StoreLayout.recordKey(ref), in: txn.databases.records) { bytes in
                try RecordCodec.keys(in: try #require(bytes)).map { Array($0.utf8) }
            }
        }
    }

    // MARK: Names

    /// A record stored before the rule under a decomposed id is listed (its ref put in NFC), but
    /// that ref finds nothing: LMDB looks ids up by their bytes, and a fallback would have to scan
    /// the kind. `verify` names such records, and the NFC spelling of one of their keys.
    @Test func aRecordStoredUnderADecomposedIdIsReportedByVerify() throws {
        try plantLegacyRecord(kind: "place", id: Self.decomposed, [("n", .int(1)), (Self.decomposed, .int(2))])
        let listed = try #require(try t.store.read { try $0.refs(ofKind: "place") }.first)
        #expect(Array(listed.id.utf8) == Array(Self.composed.utf8))
        let findings = try t.store.verify().findings
        #expect(findings.contains { $0.contains("record \(listed) is stored under an id not in Unicode NFC") })
        #expect(findings.contains { $0.contains("has a key not in Unicode NFC") })
    }

    /// U+212A KELVIN SIGN is canonically equivalent to ASCII `K` (Swift's `==` says so; NFC maps
    /// it there). A record written before the rule with the key `\u{212A}` is not found by `K`,
    /// because the fallback for older spellings only runs for non-ASCII keys — and setting `K`
    /// then adds a second entry, leaving a record that no longer decodes (a duplicate key).
    @Test func anOlderKeyWhoseNFCIsASCIIIsFoundAndRewritten() throws {
        #expect("\u{212A}" == "K")
        try plantLegacyRecord(kind: "doc", id: "1", [("\u{212A}", .int(1)), ("other", .int(0))])
        #expect(try t.store.value(forKey: "K", of: doc) == 1)
        try t.store.setValue(2, forKey: "K", of: doc)
        #expect(try storedKeys(of: doc) == [Array("K".utf8), Array("other".utf8)])
        let record: [String: Value]? = try t.store.read { [doc] txn in try txn.record(doc) }
        #expect(record == ["K": 2, "other": 0])
    }

    /// A replica replicating store to store keeps a record insertion's bytes as they are when
    /// ``ValueCheck`` vouches that the encoder would write them so. It compares a reference's
    /// text with `==` (canonical equivalence), so a decomposed reference (an older source's)
    /// passes and is stored decomposed, unlike what the decoding apply and the encoder store.
    @Test func aPassedThroughRecordHoldsItsReferencesInNFC() throws {
        let entry = JournalEntry(
            sequence: 1, commitID: 1, timestamp: Date(), ref: doc, keyPath: nil, change: .recordInserted,
            oldValue: nil, newValue: ["to": .string("place/\(Self.decomposed)")])
        var bytes = JournalCodec.encode(entry)
        let text = Array("place/\(Self.decomposed)".utf8)
        let at = try #require((0 ..< bytes.count - text.count).first { Array(bytes[$0 ..< $0 + text.count]) == text })
        #expect(bytes[at - 2] == ValueCodec.Tag.string)
        bytes[at - 2] = ValueCodec.Tag.reference  // same layout: tag, length, text
        let replica = try TemporaryStore()
        try Self.replicate([bytes], to: replica.store)
        let stored = try replica.store.read { [doc] txn in
            try #require(try txn.transaction.value(forKey: StoreLayout.recordKey(doc), in: txn.databases.records))
        }
        #expect(stored == RecordCodec.encode(try RecordCodec.decode(stored)), "the stored reference keeps the decomposed id")
    }

    /// `insert` checks and validates the keys as given; validators (and the transaction's
    /// entries, which observers are matched with) see the decomposed spelling there, while
    /// `setValue` hands them the NFC one.
    @Test func insertHandsValidatorsTheNFCKey() throws {
        let seen = Received<[UInt8]>()
        var kind = try Kind("place")
        kind.validators[Self.composed] = { _, key, _ in seen.add(Array(key.utf8)) }
        var options = Store.Options.testing
        options.validatesOnSet = true
        let s = try TemporaryStore(options: options, kinds: [kind])
        let entryKeys = try s.store.write { txn in
            try txn.insert([Self.decomposed: 1], as: ref("place/1"))
            return txn.entries.last?.newValue?.dictionaryValue?.keys.map { Array($0.utf8) }
        }
        try s.store.setValue(2, forKey: Self.decomposed, of: ref("place/1"))
        #expect(seen.all == [Array(Self.composed.utf8), Array(Self.composed.utf8)])
        #expect(entryKeys == [Array(Self.composed.utf8)])
    }

    /// `KeyValuePath(components:)` promises the path parses back to the same components, and
    /// checks keys for `.` and a leading `@` by `Character`: `.` or `@` followed by a combining
    /// mark is one Character, so the check misses it (the parser and `checkKey` go by bytes).
    @Test func keyPathComponentsWithAMarkAfterTheDotOrAtAreRefused() throws {
        #expect(throws: KeyValueCodingError.self) { try KeyValuePath(components: [.key("a.\u{301}b")]) }
        #expect(throws: KeyValueCodingError.self) { try KeyValuePath(components: [.key("@\u{301}b")]) }
        let parsed = try? KeyValuePath("@\u{301}sum")
        #expect(parsed?.firstKey == nil, "'@' then a mark parses as a key no record can hold")
    }

    // MARK: Size limit

    /// A record `["blob": bytes]` whose encoding is `size` bytes.
    private static func blob(recordSize size: Int) -> Value {
        RecordSizeLimitTests.record(encodedSize: size)["blob"]!
    }

    /// An array append refused as too large, caught inside the write: the refusal must change
    /// nothing, so the rest of the write commits. It opened the will-change pair (and sent the
    /// prior notification) before the size check, so the write fails as unbalanced instead.
    @Test func aCaughtTooLargeArrayEditLeavesTheWriteUsable() throws {
        let limit = KeyValueCodingError.maximumRecordSize
        try t.store.insert(["tags": .array([Self.blob(recordSize: limit - 200)])], as: doc)
        let priors = Received<Bool>()
        let token = try t.store.observe(doc, keyPath: "tags", options: [.prior]) { priors.add($0.isPrior) }
        defer { token.cancel() }
        try t.store.write { [doc] txn in
            let error = #expect(throws: KeyValueCodingError.self) {
                try txn.mutableArray(forKey: "tags", of: doc).append(.bytes(Data(count: 400)))
            }
            #expect(error?.code == .tooLarge)
            try txn.setValue(1, forKey: "n", of: doc)
        }
        #expect(try t.store.value(forKey: "n", of: doc) == 1)
        #expect(priors.all.filter { $0 }.isEmpty, "a prior notification for a change that was refused")
    }

    /// The same for a key-path set into a nested dictionary.
    @Test func aCaughtTooLargeKeyPathSetLeavesTheWriteUsable() throws {
        let limit = KeyValueCodingError.maximumRecordSize
        try t.store.insert(["a": ["b": Self.blob(recordSize: limit - 200)]], as: doc)
        try t.store.write { [doc] txn in
            let error = #expect(throws: KeyValueCodingError.self) {
                try txn.setValue(.bytes(Data(count: 400)), forKeyPath: "a.c", of: doc)
            }
            #expect(error?.code == .tooLarge)
            try txn.setValue(1, forKey: "n", of: doc)
        }
        #expect(try t.store.value(forKey: "n", of: doc) == 1)
        #expect(try t.store.value(forKeyPath: "a.c", of: doc) == nil)
    }

    /// A source entry that fits a frame (an older store's, before the record limit), applied by a
    /// replica: the replica's own entry for it (with the origin added) must fit a frame too, or
    /// the replica refuses it. Applied from a stream (decoded), it is refused with `tooLarge`;
    /// replicated store to store, the pass-through apply stores it with neither check, and the
    /// replica's journal then cannot be exported, nor replicated on.
    @Test(arguments: [false, true])
    func aReplicaNeverJournalsAnEntryItsStreamsCannotCarry(storeToStore: Bool) throws {
        let entry = Self.insertionEntry(size: JournalStream.maxPayload - 16, ref: doc)
        let replica = try TemporaryStore()
        do {
            if storeToStore {
                try Self.replicate([entry], to: replica.store)
            } else {
                try replica.store.applyJournal(JournalStreamReader(bytes: Self.stream(of: [entry])))
            }
        } catch {
            #expect((error as? KeyValueCodingError)?.code == .tooLarge, "\(error)")
            #expect(try replica.store.count(ofKind: "doc") == 0)
            return
        }
        #expect(throws: Never.self) { try replica.store.exportJournal(since: 1) { _ in } }
    }

    /// Replicates a source store whose journal holds `entries` (sequences from 1, one commit, as
    /// an older kvstore may have written them) to `replica`, store to store.
    static func replicate(_ entries: [[UInt8]], to replica: Store) throws {
        let source = try TemporaryStore()
        try source.store.write { txn in
            for (index, entry) in entries.enumerated() {
                try txn.transaction.put(StoreLayout.sequenceKey(UInt64(index + 1)), entry, in: txn.databases.journal)
            }
            try txn.transaction.put(StoreLayout.MetaKey.lastSequence, StoreLayout.uint64(UInt64(entries.count)), in: txn.databases.meta)
            try txn.transaction.put(StoreLayout.MetaKey.lastCommit, StoreLayout.uint64(1), in: txn.databases.meta)
        }
        let batch = try source.store.read { try $0.sourceEntries(after: 0, limit: .max) }
        _ = try JournalApplier(store: replica, mode: .replica(source: source.store.id)).apply(batch, from: 0)
    }

    /// A record insertion's journal entry, encoded to exactly `size` bytes.
    static func insertionEntry(size: Int, ref: RecordRef) -> [UInt8] {
        var count = size
        while true {
            let entry = JournalEntry(
                sequence: 1, commitID: 1, timestamp: Date(timeIntervalSinceReferenceDate: 0), ref: ref, keyPath: nil,
                change: .recordInserted, oldValue: nil, newValue: ["blob": .bytes(Data(count: count))])
            let encoded = JournalCodec.encode(entry)
            if encoded.count == size { return encoded }
            count += size - encoded.count
        }
    }

    /// A journal stream of one commit holding `entries` (sequences from 1).
    static func stream(of entries: [[UInt8]]) throws -> [UInt8] {
        var bytes: [UInt8] = []
        let writer = try JournalStreamWriter(header: JournalStreamHeader(storeID: UUID(), firstSequence: 1, lastSequence: nil)) { bytes += $0 }
        for (index, entry) in entries.enumerated() {
            try entry.withUnsafeBytes { try writer.append(encoded: $0, sequence: UInt64(index + 1), commitID: 1) }
        }
        try writer.endBatch()
        try writer.finish()
        return bytes
    }
}
