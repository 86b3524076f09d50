import Foundation
import PropertyBased
import Testing
import TestSupport
@testable import KVStore

/// Review of the stream apply that stores record insertions as their bytes (2f9e5e0): crafted
/// streams applied through the bytes path (``Store/applyJournal(_:progress:sourceLastSequence:)``)
/// and through the decoding apply (every entry decoded, ``JournalApplier/apply(_:)``) must end
/// alike: the same refusal, or the same stored bytes.
@Suite struct ReviewStreamApplyTests {
    /// What applying `stream` through both paths did: whether each refused it, and — when both
    /// applied it — that they stored and journaled the same bytes and the bytes path's store verifies.
    static func expectSameOutcome(_ stream: [UInt8], in directory: TemporaryDirectory, _ name: String, _ comment: Comment? = nil) throws {
        let fast = try Store(path: directory.path("fast-\(name)"), options: .testing)
        let slow = try Store(path: directory.path("slow-\(name)"), options: .testing)
        let fastResult = Result { try apply(stream, to: fast) }
        let slowResult = Result { try StreamEncodedApplyTests.applyDecoded(stream, to: slow) }
        switch (fastResult, slowResult) {
        case (.success, .success):
            try StreamEncodedApplyTests.expectAlike(fast, slow, name)
            #expect(try fast.verify().isHealthy, comment)
        case (.failure, .failure):
            try StreamEncodedApplyTests.expectAlike(fast, slow, name)
        case (let fastOutcome, let slowOutcome):
            Issue.record("the bytes path: \(fastOutcome); the decoding apply: \(slowOutcome). \(comment?.rawValue ?? "")")
        }
    }

    static func insertion(_ values: [String: Value], sequence: UInt64 = 1, ref: RecordRef = ref("thing/1")) -> JournalEntry {
        JournalEntry(sequence: sequence, commitID: 1, timestamp: Date(timeIntervalSince1970: 2), origin: nil, ref: ref,
                     keyPath: nil, change: .recordInserted, oldValue: nil, newValue: .dictionary(values))
    }

    /// A record over ``KeyValueCodingError/maximumRecordSize`` whose entry still fits a stream
    /// frame (a source written before the limit). The bytes path refused it with `tooLarge`; the
    /// decoding apply (`WriteTransaction.apply(_:)`, `.recordInserted`) checked no record size and
    /// stored it — so the same stream applied to a store with observers (or a declared kind) and
    /// was refused by one without. Both now refuse it with `tooLarge`, naming the record.
    @Test func aRecordOverTheSizeLimitIsRefusedByBothPaths() throws {
        let directory = try TemporaryDirectory()
        let size = KeyValueCodingError.maximumRecordSize + 1_000
        let entry = Self.insertion(["data": .bytes(Data(count: size))], ref: ref("blob/1"))
        let stream = try StreamEncodedApplyTests.stream(of: [entry], from: UUID())
        #expect(try StreamEncodedApplyTests.encodedCount(stream) == 1)
        let fast = try Store(path: directory.path("fast"), options: .testing)
        let slow = try Store(path: directory.path("slow"), options: .testing)
        let fastError = #expect(throws: (any Error).self) { try apply(stream, to: fast) }
        let slowError = #expect(throws: (any Error).self) { try StreamEncodedApplyTests.applyDecoded(stream, to: slow) }
        #expect(try slow.count(ofKind: "blob") == 0, "the decoding apply stored a record over the size limit")
        for error in [fastError, slowError] {
            let refusal = try #require(error as? KeyValueCodingError)
            #expect(refusal.code == .tooLarge)
            #expect(refusal.ref == ref("blob/1"))
        }
        // The same public call on a store with an observer in this process (the decoding apply).
        let observed = try Store(path: directory.path("observed"), options: .testing)
        let token = try observed.observeKind("other") { _ in }
        defer { token.cancel() }
        #expect(throws: (any Error).self) { try apply(stream, to: observed) }
        #expect(try observed.count(ofKind: "blob") == 0, "applyJournal stored it on a store with an observer")
    }

    /// A kind declared, closed with an index and modification times, opened again (its
    /// declaration dropped) and declared again, with insertions between each, in one batch: each
    /// insertion follows the catalog as it stands at its place in the stream.
    @Test func insertionsFollowDeclarationsDroppedAndMadeAgainInOneBatch() throws {
        let directory = try TemporaryDirectory()
        let source = try Store(path: directory.path("source"), options: .testing)
        var closed = try Kind("person", keys: ["name": .string, "age": .int])
        closed.indexes = [indexOn("name", unique: true)]
        closed.tracksModificationTimes = true
        try source.insert(["name": "A", "extra": 1], as: ref("person/0"))
        try source.write { txn in try txn.delete(ref("person/0")) }
        try source.write { txn in try txn.declare(closed) }
        try source.insert(["name": "B"], as: ref("person/1"))
        try source.write { txn in try txn.declare(Kind("person")) }  // dropped
        try source.insert(["name": "B", "other": true], as: ref("person/2"))
        try source.write { txn in try txn.delete(ref("person/2")) }
        try source.write { txn in try txn.declare(closed) }
        try source.insert(["name": "C"], as: ref("person/3"))
        let stream = try exported(source)
        // All four read as bytes; the apply stores person/0 and person/2 so (their kind undeclared then).
        #expect(try StreamEncodedApplyTests.encodedCount(stream) == 4)
        try Self.expectSameOutcome(stream, in: directory, "declarations")
        let stamps = { (name: String, id: String) in
            try Store(path: directory.path(name), options: .testing).read { try $0.modificationTimes(of: ref("person/\(id)")) }
        }
        for id in ["1", "3"] { #expect(try stamps("fast-declarations", id) == stamps("slow-declarations", id) && stamps("fast-declarations", id).count == 1) }
    }

    /// A bytes-path insertion that a declaration later in the same batch refuses (a crafted
    /// stream: the source could not have declared it so): the same refusal both ways.
    @Test func aDeclarationRefusedByAnEarlierBytesInsertionIsRefusedAlike() throws {
        let directory = try TemporaryDirectory()
        let source = try Store(path: directory.path("source"), options: .testing)
        try source.insert(["name": "A"], as: ref("person/0"))
        try source.write { txn in try txn.declare(Kind("person", keys: ["name": .string])) }
        var entries = try source.journalEntries()
        entries[0].newValue = ["name": "A", "bogus": 1]
        try Self.expectSameOutcome(StreamEncodedApplyTests.stream(of: entries, from: source.id), in: directory, "refused")
    }

    /// Values at the edges of the encoder's canonical form, each in a stream of its own: NaN
    /// payloads, -0.0, infinite and NaN dates, non-NFC strings, nested nulls and empty containers,
    /// nested keys no key path names, references with non-ASCII ids, nesting at the limit.
    @Test(arguments: Self.edgeRecords.indices)
    func edgeValuesAreStoredAsTheDecodingApplyStoresThem(_ index: Int) throws {
        let directory = try TemporaryDirectory()
        let stream = try StreamEncodedApplyTests.stream(of: [Self.insertion(Self.edgeRecords[index])], from: UUID())
        try Self.expectSameOutcome(stream, in: directory, "edge", "record \(index)")
    }

    static let edgeRecords: [[String: Value]] = {
        var deep: Value = 1
        for _ in 0 ..< 509 { deep = .array([deep]) }
        var tooDeep: Value = 1
        for _ in 0 ..< 511 { tooDeep = .array([tooDeep]) }
        return [
            ["nan": .double(Double(bitPattern: 0x7FF8_0000_0000_0001)), "snan": .double(Double(bitPattern: 0x7FF0_0000_0000_0001))],
            ["zero": .double(-0.0), "inf": .double(-.infinity), "big": .int(.min), "max": .int(.max)],
            ["when": .date(Date(timeIntervalSinceReferenceDate: .nan)), "then": .date(.distantFuture), "before": .date(Date(timeIntervalSinceReferenceDate: -0.0))],
            ["text": "e\u{301}", "other": "\u{E9}", "empty": "", "nul": "a\u{0}b"],
            ["nested": ["": .null, "a.b": 1, "@x": [:], "n": [.null, [], [:]]]],
            ["ref": .reference(ref("k/e\u{301}")), "plain": .reference(ref("a/b/c"))],
            ["deep": deep],
            ["deep": tooDeep],
            ["blob": .bytes(Data()), "k": .array([])],
        ]
    }()

    /// Generated insertions and damaged versions of them, applied both ways.
    @Test func damagedInsertionsApplyAsTheDecodingApplyAppliesThem() async {
        await propertyCheck(count: 12, input: Gen.uint64()) { seed in
            var sampler = ValueSampler(seed: seed, asciiKeysOnly: seed % 2 == 0)
            let bytes = JournalCodec.encode(StreamEncodedReadingTests.insertion(sampler.record(), ref: sampler.reference()))
            guard let directory = try? TemporaryDirectory() else { Issue.record("no directory"); return }
            for (number, damaged) in ([bytes] + (0 ..< 20).map({ _ in sampler.damaged(bytes) })).enumerated() {
                guard let stream = try? StreamEncodedReadingTests.stream(with: damaged) else { continue }
                do { try Self.expectSameOutcome(stream, in: directory, "\(number)", "\(damaged)") } catch { Issue.record("\(error)") }
            }
        }
    }
}
