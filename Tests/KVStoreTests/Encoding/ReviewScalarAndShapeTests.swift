import Dispatch
import Foundation
import Testing
@testable import KVStore

/// Adversarial review of the insert path's scalar records (``RecordCodec/encodeScalars(_:)``), the
/// per-kind count deltas (``KindCountDeltas``), shapes decoded through `mapValues`
/// (``RecordShapes``) and journal entries written in temporary memory
/// (``JournalCodec/withEncoding(_:encodedNew:_:)``).
@Suite struct ReviewScalarAndShapeTests {
    // MARK: Scalar records

    static let edgeValues: [Value] = [
        .int(.min), .int(.max), .int(-1), .int(0), .int(63), .int(64), .int(-64), .int(-65), .int(8191), .int(8192),
        .double(Double(nan: 0x1234, signaling: false)), .double(Double(nan: 7, signaling: true)), .double(-.nan),
        .double(-0.0), .double(0.0), .double(.infinity), .double(-.infinity), .double(.leastNonzeroMagnitude),
        .double(-.leastNormalMagnitude / 3), .double(.greatestFiniteMagnitude),
        .date(.distantPast), .date(.distantFuture), .date(Date(timeIntervalSinceReferenceDate: .nan)),
        .date(Date(timeIntervalSinceReferenceDate: -0.0)), .date(Date(timeIntervalSince1970: 0.000_000_1)),
        .bool(true), .bool(false),
        .string(""), .string("a\u{0}b"), .string("e\u{301}"), .string("\u{212B}"), .string("😀日本"),
        .string(String(repeating: "x", count: 15)), .string(String(repeating: "x", count: 16)),
        .string(String(repeating: "y", count: 64)), .string(String(repeating: "y", count: 65)),
        .string(String(repeating: "z", count: 127)), .string(String(repeating: "z", count: 128)),
        .string(String(repeating: "é", count: 9000)),
    ]

    /// Whether two records encode to the same bytes (NaNs compare by their bit patterns).
    static func same(_ a: [String: Value]?, _ b: [String: Value]) -> Bool {
        a.map { RecordCodec.encode($0) == RecordCodec.encode(b) } ?? false
    }

    @Test func everyEdgeValueAloneAndTogetherEncodesAsTheReference() {
        for (number, value) in Self.edgeValues.enumerated() {
            let record: [String: Value] = ["v\(number)": value]
            #expect(RecordCodec.encodeScalars(record) == ReferenceEncoding.record(record), "\(value)")
            #expect(RecordCodec.encodeScalars(record) == RecordCodec.encode(record), "\(value)")
        }
        let all = Dictionary(uniqueKeysWithValues: Self.edgeValues.enumerated().map { ("k\($0.offset)", $0.element) })
        #expect(RecordCodec.encodeScalars(all) == ReferenceEncoding.record(all))
        #expect(RecordCodec.encodeScalars(all).map { try? RecordCodec.decode($0) }.map { Self.same($0, all) } == true)
    }

    /// Keys that share a 16-byte packed prefix and differ by trailing NULs or length, keys past
    /// 16, 127, 128 and 300 bytes, DEL and NUL: byte order after packing must be UTF-8 order.
    static let awkwardKeys: [String] = {
        let p15 = "abcdefghabcdefg", p16 = "abcdefghabcdefgh"
        var keys = ["a", "a\u{0}", "a\u{0}\u{0}", "a\u{0}b", "A", "~", "\u{7F}", "\u{1}", "\u{0}", "\u{0}\u{0}", "Z\u{7F}",
                    p15, p15 + "\u{0}", p15 + "\u{0}\u{0}", p15 + "\u{0}a", p16, p16 + "\u{0}", p16 + "a", p16 + "a\u{0}",
                    p16 + "b", p16 + "aa", "abcdefgh", "abcdefgh\u{0}", "abcdefgh\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}"]
        for length in [17, 63, 64, 65, 127, 128, 129, 255, 256, 300, 5000] {
            keys.append(String(repeating: "q", count: length))
            keys.append(String(repeating: "q", count: length - 1) + "\u{0}")
        }
        return keys
    }()

    @Test func awkwardKeysSortAsTheirBytes() {
        var record: [String: Value] = [:]
        for (number, key) in Self.awkwardKeys.enumerated() { record[key] = .int(Int64(number)) }
        #expect(RecordCodec.encodeScalars(record) == ReferenceEncoding.record(record))
        // Every pair alone too (the sort of two slots).
        for a in Self.awkwardKeys {
            for b in Self.awkwardKeys where a != b {
                let pair: [String: Value] = [a: .bool(true), b: .string("s")]
                #expect(RecordCodec.encodeScalars(pair) == ReferenceEncoding.record(pair), "\(Array(a.utf8)) \(Array(b.utf8))")
            }
        }
    }

    /// Counts around the stack's 16 slots and the entry count's varint (127/128).
    @Test(arguments: [0, 1, 2, 15, 16, 17, 127, 128, 129, 300])
    func entryCountsEncodeAsTheReference(_ count: Int) {
        var record: [String: Value] = [:]
        for number in 0 ..< count {
            record["key\(String(number, radix: 7))"] = Self.edgeValues[number % Self.edgeValues.count]
        }
        let scalars = RecordCodec.encodeScalars(record)
        if count == 0 {
            #expect(scalars == nil)
            #expect(RecordCodec.encodePlain(record)?.bytes ?? RecordCodec.encode(record) == ReferenceEncoding.record(record))
        } else {
            #expect(scalars == ReferenceEncoding.record(record))
            #expect(RecordCodec.encodePlain(record)?.bytes == scalars)
        }
    }

    /// Through a store: the stored bytes are the generic encoder's, the record reads back, and
    /// records that must leave the scalar path (a null, a container, a non-ASCII key) store what
    /// the general path stores; verify stays clean.
    @Test func insertedEdgeRecordsStoreTheGenericBytesAndVerify() throws {
        let temporary = try TemporaryStore()
        var records: [[String: Value]] = [
            [:],
            ["only": .int(.min)],
            Dictionary(uniqueKeysWithValues: Self.edgeValues.enumerated().map { ("k\($0.offset)", $0.element) }),
            Dictionary(uniqueKeysWithValues: (0 ..< 16).map { ("s\($0)", Value.int(Int64($0))) }),
            Dictionary(uniqueKeysWithValues: (0 ..< 17).map { ("s\($0)", Value.int(Int64($0))) }),
            ["a": 1, "b": .null],
            ["a": 1, "b": [.int(2)]],
            ["a": 1, "b": ["c": 2]],
            ["a": 1, "e\u{301}": .string("x")],
            ["a": 1, "\u{212B}": .double(.nan)],
            [String(repeating: "k", count: 400): .string(String(repeating: "v", count: 3 << 20))],
        ]
        records.append(Dictionary(uniqueKeysWithValues: Self.awkwardKeys.enumerated().map { ($0.element, Value.int(Int64($0.offset))) }))
        try temporary.store.write { txn in
            for (number, record) in records.enumerated() { try txn.insert(record, as: ref("edge/r\(number)")) }
        }
        try temporary.store.read { txn in
            for (number, record) in records.enumerated() {
                let expected = UTF8Text.composingKeys(record.filter { !$0.value.isNull })
                let stored = try txn.transaction.value(forKey: StoreLayout.recordKey(ref("edge/r\(number)")), in: temporary.store.databases.records)
                #expect(stored == RecordCodec.encode(expected), "record \(number)")
                #expect(Self.same(try txn.record(ref("edge/r\(number)")), expected), "record \(number)")
            }
        }
        let report = try temporary.store.verify()
        #expect(report.findings.isEmpty, "\(report.findings)")
    }

    // MARK: Kind count deltas

    struct Refused: Error {}

    /// The counts a transaction reports against the records it can enumerate, for every kind.
    static func expectCountsMatch(_ txn: ReadTransaction, kinds: [String], _ comment: String) throws {
        for kind in kinds {
            #expect(try txn.count(ofKind: kind) == txn.records(ofKind: kind).count, "\(kind) \(comment)")
        }
        let listed = try txn.kinds().map { "\($0.kind)=\($0.count)" }
        let enumerated = try kinds.sorted().compactMap { kind in
            let count = try txn.records(ofKind: kind).count
            return count > 0 ? "\(kind)=\(count)" : nil
        }
        #expect(listed == enumerated, "\(comment)")
    }

    @Test func countsFollowInterleavedInsertsAndDeletesInsideAndAfterTheTransaction() throws {
        let temporary = try TemporaryStore()
        let kinds = ["a", "b", "c"]
        var random = SystemRandomNumberGenerator()
        var live: [RecordRef] = []
        var next = 0
        for round in 0 ..< 4 {
            try temporary.store.write { txn in
                for step in 0 ..< 60 {
                    if !live.isEmpty && Int.random(in: 0 ..< 3, using: &random) == 0 {
                        let victim = live.remove(at: Int.random(in: 0 ..< live.count, using: &random))
                        try txn.delete(victim)
                    } else {
                        let kind = kinds[step % 7 < 4 ? 0 : Int.random(in: 0 ..< 3, using: &random)]
                        let made = ref("\(kind)/n\(next)")
                        next += 1
                        try txn.insert(["n": .int(Int64(next))], as: made)
                        live.append(made)
                    }
                    if step % 10 == 0 { try Self.expectCountsMatch(txn, kinds: kinds, "round \(round) step \(step)") }
                }
                try Self.expectCountsMatch(txn, kinds: kinds, "round \(round) end")
            }
            try temporary.store.read { try Self.expectCountsMatch($0, kinds: kinds, "after round \(round)") }
        }
        #expect(try temporary.store.verify().findings.isEmpty)
    }

    @Test func aWriteThatThrowsAfterInsertingLeavesTheCountsAlone() throws {
        let temporary = try TemporaryStore()
        try temporary.store.write { txn in try txn.insert(["n": 1], as: ref("a/keep")) }
        #expect(throws: Refused.self) {
            try temporary.store.write { txn in
                try txn.insert(["n": 2], as: ref("a/gone"))
                try txn.insert(["n": 3], as: ref("b/gone"))
                try txn.delete(ref("a/keep"))
                throw Refused()
            }
        }
        // A failed insert (the record exists) caught inside the transaction changes no count.
        try temporary.store.write { txn in
            #expect(throws: KeyValueCodingError.self) { try txn.insert(["n": 4], as: ref("a/keep")) }
            try txn.insert(["n": 5], as: ref("b/kept"))
            #expect(throws: KeyValueCodingError.self) { try txn.insert(["n": 6], as: ref("b/kept")) }
        }
        // A record over the size limit, refused and caught: nothing of it is counted.
        try temporary.store.write { txn in
            #expect(throws: KeyValueCodingError.self) {
                try txn.insert(["big": .string(String(repeating: "x", count: KeyValueCodingError.maximumRecordSize))], as: ref("a/huge"))
            }
            let counted = try txn.count(ofKind: "a")
            #expect(counted == 1)
        }
        try temporary.store.read { try Self.expectCountsMatch($0, kinds: ["a", "b"], "after failures") }
        #expect(try temporary.store.read { try ($0.count(ofKind: "a"), $0.count(ofKind: "b")) } == (1, 1))
        #expect(try temporary.store.verify().findings.isEmpty)
    }

    /// Writes from several threads join group commits, each run in a nested transaction of the
    /// group's: a write that throws after inserting must take its count changes with it.
    @Test func groupedWritesThatThrowDropTheirCountDeltas() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let writers = 8, rounds = 12
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            for round in 0 ..< rounds {
                _ = try? store.write { txn in
                    for number in 0 ..< 5 {
                        let kind = ["a", "b"][(number + writer) % 2]
                        try txn.insert(["w": .int(Int64(writer))], as: ref("\(kind)/w\(writer)r\(round)n\(number)"))
                    }
                    // Hold the write a moment so that the other writers queue and form a group.
                    usleep(2000)
                    if (writer + round) % 3 == 0 { throw Refused() }
                }
            }
        }
        try store.read { txn in
            try Self.expectCountsMatch(txn, kinds: ["a", "b"], "after the groups")
            let kept = (0 ..< writers).reduce(0) { sum, writer in sum + (0 ..< rounds).filter { (writer + $0) % 3 != 0 }.count }
            #expect(try txn.count(ofKind: "a") + txn.count(ofKind: "b") == kept * 5)
        }
        #expect(try store.verify().findings.isEmpty)
    }

    // MARK: Shapes

    @Test func moreLayoutsThanShapesInOneTransactionReadBackExactly() throws {
        let temporary = try TemporaryStore()
        var written: [RecordRef: [String: Value]] = [:]
        let layouts: [[String]] = [["a", "b"], ["a", "c"], ["a", "bb"], ["a", "b", "c"], ["aa", "b"], ["a", "B"], ["a", "b\u{0}"]]
        try temporary.store.write { txn in
            for number in 0 ..< 70 {
                let keys = layouts[number % layouts.count]
                let record = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($0.element, Value.int(Int64(number * 10 + $0.offset))) })
                let made = ref("shape/r\(1000 + number)")
                try txn.insert(record, as: made)
                written[made] = record
                // Read back at once, and an earlier one of another layout.
                #expect(try txn.record(made) == record)
                if number > 3 {
                    let earlier = ref("shape/r\(1000 + number - 3)")
                    #expect(try txn.record(earlier) == written[earlier])
                }
            }
        }
        try temporary.store.read { txn in
            for _ in 0 ..< 2 {
                for record in try txn.records(ofKind: "shape") { #expect(record.values == written[record.ref], "\(record.ref)") }
            }
        }
    }

    @Test func aDamagedValueUnderKnownKeysGivesTheFullDecodersError() throws {
        var shapes = RecordShapes()
        let record: [String: Value] = ["a": .int(300), "b": .string("hello"), "c": .double(1.5)]
        let bytes = RecordCodec.encode(record)
        for _ in 0 ..< 3 { #expect(try bytes.withUnsafeBytes { try shapes.decode($0) } == record) }
        // Every single byte changed to every value: the same result or the same error as the full decoder.
        for position in 0 ..< bytes.count {
            for replacement in [UInt8(0), 0x01, 0x05, 0x7F, 0x80, 0xFF, bytes[position] &+ 1] {
                var damaged = bytes
                damaged[position] = replacement
                let full = Result { () throws -> [String: Value] in try RecordCodec.decode(damaged) }
                let viaShapes = Result { () throws -> [String: Value] in try damaged.withUnsafeBytes { try shapes.decode($0) } }
                switch (full, viaShapes) {
                case (.success(let a), .success(let b)): #expect(Self.same(a, b), "byte \(position) = \(replacement)")
                case (.failure(let a), .failure(let b)): #expect("\(a)" == "\(b)", "byte \(position) = \(replacement)")
                default: Issue.record("byte \(position) = \(replacement): \(full) vs \(viaShapes)")
                }
            }
        }
        // The shape still decodes the original afterwards.
        #expect(try bytes.withUnsafeBytes { try shapes.decode($0) } == record)
    }

    @Test func recordsDifferingInOneKeysBytesOrLengthAreNotTakenForTheShape() throws {
        var shapes = RecordShapes()
        let base: [String: Value] = ["alpha": 1, "beta": 2, "gammagammagamma1": 3]
        let variants: [[String: Value]] = [
            base, ["alpha": 1, "beta": 2, "gammagammagamma2": 3], ["alpha": 1, "beta": 2, "gammagammagamma12": 3],
            ["alpha": 1, "betb": 2, "gammagammagamma1": 3], ["alpha": 1, "bet": 2, "gammagammagamma1": 3],
            ["alphA": 1, "beta": 2, "gammagammagamma1": 3], ["alpha": 1, "beta\u{0}": 2, "gammagammagamma1": 3], base,
        ]
        for _ in 0 ..< 3 {
            for variant in variants {
                #expect(try RecordCodec.encode(variant).withUnsafeBytes { try shapes.decode($0) } == variant)
            }
        }
    }

    @Test func mutatingADecodedRecordLeavesLaterDecodesAlone() throws {
        var shapes = RecordShapes()
        let record: [String: Value] = ["a": 1, "b": "x", "c": [.int(1)]]
        let bytes = RecordCodec.encode(record)
        var first = try bytes.withUnsafeBytes { try shapes.decode($0) }
        var second = try bytes.withUnsafeBytes { try shapes.decode($0) }
        first["a"] = 99
        first["z"] = "new"
        first.removeValue(forKey: "b")
        second["c"] = .null
        second.removeAll()
        #expect(try bytes.withUnsafeBytes { try shapes.decode($0) } == record)
        #expect(try bytes.withUnsafeBytes { try shapes.decode($0) }.count == 3)
    }

    // MARK: Journal entries in temporary memory

    static func entry(_ record: [String: Value]) -> JournalEntry {
        JournalEntry(
            sequence: 200, commitID: 3, timestamp: Date(timeIntervalSinceReferenceDate: 9),
            stamp: HybridTime(packed: 12345), ref: ref("kind/id"), keyPath: nil,
            change: .recordInserted, oldValue: nil, newValue: .dictionary(record))
    }

    @Test func entriesAroundOneKibibyteAreTheEntryEncoded() {
        var sizes: Set<Int> = []
        for length in 800 ..< 1100 {
            let record: [String: Value] = ["s": .string(String(repeating: "w", count: length)), "n": 1]
            let encodedNew = RecordCodec.encode(record)
            for encoded in [encodedNew, nil] as [[UInt8]?] {
                let entry = Self.entry(record)
                let size = EntryPlan(entry, encodedNew: encoded).size
                guard (1020 ... 1030).contains(size) else { continue }
                sizes.insert(size)
                let inMemory = JournalCodec.withEncoding(entry, encodedNew: encoded) { Array($0) }
                #expect(inMemory.count == size)
                #expect(inMemory == JournalCodec.encode(entry, encodedNew: encoded), "\(size)")
                #expect(inMemory == ReferenceEncoding.record(entry.dictionary), "\(size)")
            }
        }
        #expect(sizes.isSuperset(of: [1023, 1024, 1025]))
    }

    @Test func storedEntriesAroundOneKibibyteDecodeAndReencodeExactly() throws {
        let temporary = try TemporaryStore()
        let lengths = Array(850 ..< 1050)
        try temporary.store.write { txn in
            for length in lengths {
                try txn.insert(["s": .string(String(repeating: "w", count: length)), "n": .int(Int64(length))], as: ref("j/r\(length)"))
            }
        }
        try temporary.store.read { txn in
            var sizes: Set<Int> = []
            for sequence in 1 ... UInt64(lengths.count) {
                let stored = try #require(try txn.transaction.value(forKey: StoreLayout.sequenceKey(sequence), in: temporary.store.databases.journal))
                sizes.insert(stored.count)
                let entry = try stored.withUnsafeBytes { try JournalCodec.decode($0, sequence: sequence) }
                #expect(stored == RecordCodec.encode(entry.dictionary))
            }
            #expect(sizes.contains(1024) && sizes.contains(1025), "\(sizes.sorted())")
        }
    }
}
