import Foundation
import Testing
@testable import KVStore

/// Names (keys at every level, key paths, ids) are stored in NFC: the two spellings of `café`,
/// equal as Swift strings but not as bytes, name one key and one record on every write path.
@Suite struct UnicodeNormalizationTests {
    /// `café` composed (U+00E9) and decomposed (`e` + U+0301).
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    let t: TemporaryStore
    let record = ref("place/1")

    init() throws {
        t = try TemporaryStore()
    }

    /// The stored record's keys as bytes: exactly one spelling, the composed one.
    private func storedKeys(of ref: RecordRef) throws -> [[UInt8]] {
        try t.store.read { txn in
            try txn.transaction.withValue(forKey: StoreLayout.recordKey(ref), in: txn.databases.records) { bytes in
                try RecordCodec.keys(in: try #require(bytes)).map { Array($0.utf8) }
            }
        }
    }

    private func expectOneComposedKey(in ref: RecordRef, value: Value, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try storedKeys(of: ref).filter { $0 != Array("other".utf8) } == [Array(Self.composed.utf8)],
                sourceLocation: sourceLocation)
        #expect(try t.store.value(forKey: Self.composed, of: ref) == value, sourceLocation: sourceLocation)
        #expect(try t.store.value(forKey: Self.decomposed, of: ref) == value, sourceLocation: sourceLocation)
        #expect(try t.store.verify().isHealthy, sourceLocation: sourceLocation)
    }

    @Test(arguments: [(composed, decomposed), (decomposed, composed)])
    func setValueForKeyWithEitherSpellingSetsOneKey(first: String, second: String) throws {
        try t.store.insert(["other": 0], as: record)
        try t.store.setValue(1, forKey: first, of: record)
        try t.store.setValue(2, forKey: second, of: record)
        try expectOneComposedKey(in: record, value: 2)
        let entries = try t.store.journalEntries().filter { $0.change == .setting }
        #expect(entries.map { $0.keyPath.map { Array($0.utf8) } } == [Array(Self.composed.utf8), Array(Self.composed.utf8)])
        #expect(entries.last?.oldValue == 1)
    }

    @Test func insertStoresComposedKeysAtEveryLevel() throws {
        let nested: Value = [Self.decomposed: ["x": 1]]
        try t.store.insert([Self.decomposed: 1, "other": .array([nested])], as: record)
        try expectOneComposedKey(in: record, value: 1)
        let stored = try #require(try t.store.value(forKey: "other", of: record))
        let data = ValueCodec.encode(stored)
        #expect(!data.containsBytes(Array(Self.decomposed.utf8)))
        #expect(data.containsBytes(Array(Self.composed.utf8)))
    }

    @Test func removingWithTheOtherSpellingRemovesTheKey() throws {
        try t.store.insert([Self.composed: 1, "other": 0], as: record)
        try t.store.write { [record] txn in try txn.removeValue(forKey: Self.decomposed, of: record) }
        #expect(try storedKeys(of: record) == [Array("other".utf8)])
    }

    @Test func keyPathSetThroughANestedDictionaryKeepsOneKey() throws {
        try t.store.insert(["address": [Self.composed: "a"]], as: record)
        try t.store.setValue("b", forKeyPath: "address.\(Self.decomposed)", of: record)
        let address = try #require(try t.store.value(forKey: "address", of: record)?.dictionaryValue)
        #expect(address.count == 1)
        #expect(address.keys.map { Array($0.utf8) } == [Array(Self.composed.utf8)])
        #expect(address[Self.composed] == "b")
        #expect(try t.store.value(forKeyPath: "address.\(Self.decomposed)", of: record) == "b")
        #expect(try t.store.journalEntries().last?.keyPath.map { Array($0.utf8) } == Array("address.\(Self.composed)".utf8))
    }

    @Test func mutableArrayUnderTheOtherSpellingEditsTheSameArray() throws {
        try t.store.insert([Self.composed: [1]], as: record)
        try t.store.write { [record] txn in try txn.mutableArray(forKey: Self.decomposed, of: record).append(2) }
        try expectOneComposedKey(in: record, value: [1, 2])
    }

    @Test func idsWithEitherSpellingNameOneRecord() throws {
        let composed = try RecordRef(kind: "place", id: Self.composed)
        let decomposed = try RecordRef(kind: "place", id: Self.decomposed)
        #expect(Array(decomposed.id.utf8) == Array(Self.composed.utf8))
        try t.store.insert(["n": 1], as: decomposed)
        #expect(try t.store.value(forKey: "n", of: composed) == 1)
        #expect(throws: KeyValueCodingError.self) { try t.store.insert(["n": 2], as: composed) }
        #expect(try t.store.count(ofKind: "place") == 1)
        // References inside values are stored composed too.
        try t.store.insert(["to": .reference(decomposed)], as: record)
        #expect(try t.store.value(forKeyPath: "to.n", of: record) == 1)
    }

    @Test func typedSaveAndSetValuesForKeysUseOneSpelling() throws {
        try t.store.insert([Self.composed: 1], as: record)
        try t.store.write { [record] txn in try txn.setValuesForKeys([Self.decomposed: 5], of: record) }
        try expectOneComposedKey(in: record, value: 5)
        _ = try t.store.write { [record] txn in try txn.update(record, from: [Self.decomposed: 6]) }
        try expectOneComposedKey(in: record, value: 6)
    }

    /// A record written before the rule, holding the decomposed spelling: reads find it by either
    /// spelling, and a write replaces it instead of adding a second key.
    @Test func aRecordWrittenBeforeTheRuleIsRewrittenNotDuplicated() throws {
        let legacy = Self.recordBytes([(Self.decomposed, .int(1)), ("other", .int(0))])
        try t.store.insert(["other": 0], as: record)
        try t.store.write { [record] txn in
            try txn.transaction.put(StoreLayout.recordKey(record), legacy, in: txn.databases.records)
        }
        #expect(try t.store.value(forKey: Self.composed, of: record) == 1)
        try t.store.setValue(2, forKey: Self.composed, of: record)
        try expectOneComposedKey(in: record, value: 2)
        #expect(try t.store.journalEntries().last?.oldValue == 1)
    }

    /// Replication and journal apply carry a source's decomposed key paths onto the composed key.
    @Test func journalApplyOfTheOtherSpellingKeepsOneKey() throws {
        let source = try TemporaryStore()
        try source.store.insert(["other": 0], as: record)
        try source.store.setValue(1, forKey: Self.composed, of: record)
        try source.store.setValue(2, forKey: Self.decomposed, of: record)
        var stream: [UInt8] = []
        try source.store.exportJournal(since: 1) { stream += $0 }
        let replica = try TemporaryStore()
        try replica.store.applyJournal(JournalStreamReader(bytes: stream))
        let bytes = try replica.store.read { [record] txn in
            try #require(try txn.transaction.value(forKey: StoreLayout.recordKey(record), in: txn.databases.records))
        }
        #expect(try bytes.withUnsafeBytes { try RecordCodec.keys(in: $0) }.map { Array($0.utf8) }
                == [Array(Self.composed.utf8), Array("other".utf8)])
        #expect(try replica.store.value(forKey: Self.decomposed, of: record) == 2)
        #expect(try replica.store.verify().isHealthy)
    }

    /// A record encoding as an older kvstore wrote it: keys as given, in byte order.
    static func recordBytes(_ entries: [(String, Value)]) -> [UInt8] {
        let sorted = entries.sorted { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
        var body: [UInt8] = []
        var offsets: [UInt32] = [0]
        for (key, value) in sorted {
            ValueCodec.appendVarint(UInt64(key.utf8.count), to: &body)
            body += Array(key.utf8)
            ValueCodec.encode(value, into: &body)
            offsets.append(UInt32(body.count))
        }
        var bytes: [UInt8] = [ValueCodec.version]
        ValueCodec.appendVarint(UInt64(sorted.count), to: &bytes)
        for offset in offsets { withUnsafeBytes(of: offset.littleEndian) { bytes += $0 } }
        return bytes + body
    }
}

private extension Array where Element == UInt8 {
    func containsBytes(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0 ... count - needle.count).contains { self[$0 ..< $0 + needle.count].elementsEqual(needle) }
    }
}
