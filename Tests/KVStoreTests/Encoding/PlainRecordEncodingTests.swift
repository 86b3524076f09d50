import Foundation
import PropertyBased
import Testing
@testable import KVStore

/// The insert path's one-pass encoder (``RecordCodec/encodePlain(_:checkingNesting:)``) against
/// the reference layout and ``RecordCodec/encode(_:)``: the same bytes for every record it takes,
/// and nil for every record it must leave to the general path (a key a key path cannot name, a
/// non-ASCII key at any level, a top-level null); and the journal's sized encoder
/// (``JournalCodec/encode(_:encodedNew:)``) against the entry's dictionary encoded generically.
@Suite struct PlainRecordEncodingTests {
    /// Whether `record` is one the plain encoder must take.
    static func isPlain(_ record: [String: Value]) -> Bool {
        record.allSatisfy { key, value in
            !key.isEmpty && !key.hasPrefix("@") && !key.contains(".") && key.utf8.allSatisfy { $0 < 0x80 }
                && !value.isNull && nestedKeysAreASCII(value)
        }
    }

    static func nestedKeysAreASCII(_ value: Value) -> Bool {
        switch value {
        case .dictionary(let entries): entries.allSatisfy { $0.key.utf8.allSatisfy { $0 < 0x80 } && nestedKeysAreASCII($0.value) }
        case .array(let elements): elements.allSatisfy(nestedKeysAreASCII)
        default: true
        }
    }

    static func check(_ record: [String: Value], sourceLocation: SourceLocation = #_sourceLocation) {
        let plain = RecordCodec.encodePlain(record)
        if isPlain(record) {
            #expect(plain?.bytes == ReferenceEncoding.record(record), "\(record)", sourceLocation: sourceLocation)
            #expect(plain?.bytes == RecordCodec.encode(record), sourceLocation: sourceLocation)
            let hasContainer = record.values.contains { if case .array = $0 { true } else if case .dictionary = $0 { true } else { false } }
            #expect(plain?.hasContainer == hasContainer, sourceLocation: sourceLocation)
        } else {
            #expect(plain == nil, "a record the general path must take was encoded plainly: \(record)", sourceLocation: sourceLocation)
        }
    }

    @Test func generatedRecordsOfEveryShapeEncodeAsTheReference() async {
        await propertyCheck(count: 400, input: Gen.uint64()) { seed in
            var keys = KeySampler(seed: seed)
            var values = ValueSampler(seed: seed, asciiKeysOnly: true)
            // Stressed keys (often refused), and ASCII-keyed records of every tag (taken).
            Self.check(keys.record(depth: 1))
            Self.check(values.record())
            Self.check(values.record().filter { !$0.key.isEmpty })
        }
    }

    /// One batch shape after another, as inserts repeat them: the same key set with other values,
    /// then a different key set, then the first again — each encoded as the reference.
    @Test func changingKeySetsEncodeAsTheReference() {
        let shapes: [[String]] = [
            (0 ..< 16).map { "k\($0)" },
            (0 ..< 16).map { "k\($0)" }.reversed() + ["k16"],
            ["abcdefghabcdefgh", "abcdefghabcdefgh\u{0}", "abcdefghabcdefghZ", "abcdefghabcdefgha", "abcdefgh", "abcdefgh\u{0}", "a", "a\u{0}", "\u{0}"],
            [String(repeating: "x", count: 40) + "b", String(repeating: "x", count: 40) + "a", String(repeating: "x", count: 40), "~", "\u{7F}"],
            (0 ..< 16).map { "k\($0)" },
        ]
        var values = ValueSampler(seed: 18, asciiKeysOnly: true)
        for (number, keys) in shapes.enumerated() {
            for _ in 0 ..< 5 {
                let record = Dictionary(uniqueKeysWithValues: keys.map { ($0, values.value(depth: 2)) }).filter { !$0.value.isNull }
                #expect(RecordCodec.encodePlain(record)?.bytes == ReferenceEncoding.record(record), "shape \(number): \(record)")
            }
        }
    }

    @Test(arguments: [
        ["é": 1], ["e\u{301}": 1], ["": 1], ["a.b": 1], ["@count": 1], ["a": .null],
        ["a": ["é": 1]], ["a": [["x": ["ü": true]]]], ["日本": "x"],
    ] as [[String: Value]])
    func recordsForTheGeneralPathAreLeftToIt(_ record: [String: Value]) {
        #expect(RecordCodec.encodePlain(record) == nil)
    }

    @Test func nestingIsCheckedOnlyWithAContainerAndBeforeItIsSized() throws {
        var calls = 0
        _ = RecordCodec.encodePlain(["a": 1, "b": "x"]) { calls += 1 }
        #expect(calls == 0)
        _ = RecordCodec.encodePlain(["a": [1, 2]]) { calls += 1 }
        #expect(calls == 1)
        struct TooDeep: Error {}
        #expect(throws: TooDeep.self) { try RecordCodec.encodePlain(["a": ["b": 1]]) { throw TooDeep() } }
    }

    @Test func insertsOfNonASCIIOrNullKeysStillStoreTheReference() throws {
        let temporary = try TemporaryStore()
        let records: [[String: Value]] = [["é": 1, "a": .null, "b": ["ü": 2]], ["e\u{301}": 1, "k": "v"], ["k": [1, ["x": .null]]]]
        try temporary.store.write { txn in
            for (number, record) in records.enumerated() { try txn.insert(record, as: ref("mixed/r\(number)")) }
        }
        try temporary.store.read { txn in
            for (number, record) in records.enumerated() {
                let stored = try txn.transaction.value(forKey: StoreLayout.recordKey(ref("mixed/r\(number)")), in: temporary.store.databases.records)
                #expect(stored == RecordCodec.encode(record.filter { !$0.value.isNull }))
            }
        }
    }

    /// Every optional field of a journal entry, present and absent, and values needing their keys
    /// composed: the sized encoder writes what the dictionary's generic encoding writes.
    @Test func journalEntriesOfEveryFieldSetEncodeAsTheirDictionary() async {
        await propertyCheck(count: 200, input: Gen.uint64()) { seed in
            var values = ValueSampler(seed: seed)
            let random = values.random.below(256)
            let entry = JournalEntry(
                sequence: UInt64(values.random.below(1 << 20)), commitID: UInt64(values.random.below(300)),
                timestamp: Date(timeIntervalSinceReferenceDate: Double(values.random.below(1 << 30)) / 7),
                stamp: random & 1 == 0 ? nil : HybridTime(packed: UInt64(values.random.below(1 << 40))),
                origin: random & 2 == 0 ? nil : JournalOrigin(storeID: UUID(), sequence: UInt64(values.random.below(1 << 30))),
                ref: ref("kind/id\(random)"), keyPath: random & 4 == 0 ? nil : "k.é\(random)",
                change: random & 8 == 0 ? .setting : .replacement,
                oldValue: random & 16 == 0 ? nil : values.value(depth: 1),
                newValue: random & 32 == 0 ? nil : .dictionary(["e\u{301}": values.value(depth: 2)]),
                indexes: random & 64 == 0 ? nil : (0 ..< values.random.below(4)).map { $0 * 200 - 100 },
                isDerived: random & 128 != 0)
            #expect(JournalCodec.encode(entry) == RecordCodec.encode(entry.dictionary), "\(entry)")
        }
    }
}
