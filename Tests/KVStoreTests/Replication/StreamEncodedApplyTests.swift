import Foundation
import Testing
import TestSupport
@testable import KVStore

/// `journal apply` from a stream applies record insertions as their bytes, as `Replicator` does,
/// against the decoding apply of the same stream (every entry decoded by ``JournalStreamReader/nextCommit()``
/// and applied by ``JournalApplier/apply(_:)``): the same records, journal, counts, modification
/// times, indexes and errors.
@Suite struct StreamEncodedApplyTests {
    /// Applies `stream` as the decoding apply does, in one transaction.
    @discardableResult
    static func applyDecoded(_ stream: [UInt8], to store: Store) throws -> JournalApplier.Outcome {
        let reader = try JournalStreamReader(bytes: stream)
        var commits: [[JournalEntry]] = []
        while let commit = try reader.nextCommit() { commits.append(commit) }
        return try JournalApplier(store: store, mode: .replica(source: reader.header.storeID)).apply(commits[...])
    }

    /// How many of the stream's entries the apply reads kept as their bytes.
    static func encodedCount(_ stream: [UInt8]) throws -> Int {
        let reader = try JournalStreamReader(bytes: stream)
        var count = 0
        while let item = try reader.nextRawItem(keepingInsertionsEncoded: true) {
            guard case .commit(let commit) = item else { continue }
            count += commit.entries.filter { if case .encoded = $0.form { true } else { false } }.count
        }
        return count
    }

    /// The two stores hold the same bytes: records, journal (but for local commit times), counts.
    static func expectAlike(_ fast: Store, _ slow: Store, _ name: String = "") throws {
        let differential = PassThroughDifferentialTests()
        #expect(try differential.rawRecords(fast) == differential.rawRecords(slow), "\(name)")
        #expect(try differential.journalWithoutTimes(fast) == differential.journalWithoutTimes(slow), "\(name)")
        #expect(try fast.journalEntries().map(\.commitID) == slow.journalEntries().map(\.commitID), "\(name)")
        let kinds = { (store: Store) in try store.read { try $0.kinds().map { "\($0.kind) \($0.count)" } } }
        #expect(try kinds(fast) == kinds(slow), "\(name)")
        #expect(try IndexReplicationTests.contents(fast) == IndexReplicationTests.contents(slow), "\(name)")
    }

    /// The journal of every edge, from a source and from a replica of it (entries with origins).
    @Test func theStreamApplyStoresAndJournalsWhatTheDecodingApplyDoes() throws {
        let directory = try TemporaryDirectory()
        let source = try Store(path: directory.path("source"), options: everyEdgeOptions())
        try fillWithEveryEdge(source)
        let middle = try Store(path: directory.path("middle"), options: everyEdgeOptions())
        try apply(exported(source), to: middle)
        for (name, from) in [("source", source), ("middle", middle)] {
            let stream = try exported(from)
            #expect(try Self.encodedCount(stream) >= 15, "\(name)")
            let fast = try Store(path: directory.path("fast-\(name)"), options: everyEdgeOptions())
            let slow = try Store(path: directory.path("slow-\(name)"), options: everyEdgeOptions())
            let summary = try apply(stream, to: fast)
            let outcome = try Self.applyDecoded(stream, to: slow)
            #expect(summary.applied == outcome.applied && summary.skipped == outcome.skipped)
            try Self.expectAlike(fast, slow, name)
            let stamps = { (store: Store) in try store.read { try $0.modificationTimes(of: ref("stamped/1")) } }
            #expect(try stamps(fast) == stamps(slow) && stamps(fast).count == 1)
            for store in [fast, slow] {
                #expect(try store.read { try $0.replicationCheckpoint(for: from.id) } == from.read { try $0.lastSequence() })
                #expect(try store.verify().isHealthy)
            }
        }
    }

    /// A kind declared in the stream after records of that kind went in as their bytes, in one
    /// batch: the records after the declaration follow it (its modification times here).
    @Test func recordsAfterTheirKindsDeclarationInTheSameBatchFollowIt() throws {
        let directory = try TemporaryDirectory()
        let source = try Store(path: directory.path("source"), options: .testing)
        try source.insert(["title": "before"], as: ref("stamped/0"))
        try source.write { txn in try txn.declare(stampedKind) }
        try source.insert(["title": "after"], as: ref("stamped/1"))
        let stream = try exported(source)
        let fast = try Store(path: directory.path("fast"), options: .testing)
        let slow = try Store(path: directory.path("slow"), options: .testing)
        try apply(stream, to: fast)
        try Self.applyDecoded(stream, to: slow)
        try Self.expectAlike(fast, slow)
        let stamps = { (store: Store) in try store.read { try $0.modificationTimes(of: ref("stamped/1")) } }
        #expect(try stamps(fast).count == 1 && stamps(fast) == stamps(slow))
        // The replicator, reading the same journal in one batch.
        let replica = directory.path("replica")
        try Replicator(source: source, replicaPath: replica, options: .testing).run()
        #expect(try stamps(Store(path: replica, options: .testing)).count == 1)
    }

    /// A stream whose insertion breaks the closed kind it declared just before, in one batch:
    /// refused with the decoding apply's error, and nothing of it applied.
    @Test func anInsertionAfterADeclarationThatRefusesItIsRefused() throws {
        let directory = try TemporaryDirectory()
        let source = try Store(path: directory.path("source"), options: .testing)
        try source.insert(["name": "Ada"], as: ref("person/0"))
        try source.write { txn in try txn.declare(Kind("person", keys: ["name": .string])) }
        try source.insert(["name": "Bob"], as: ref("person/1"))
        var entries = try source.journalEntries()
        entries[entries.count - 1].newValue = ["bogus": 1]
        let stream = try Self.stream(of: entries, from: source.id)
        try Self.expectSameRefusal(stream, in: directory)
    }

    /// The replica's own kind rules (a closed kind, a declared type, a unique index) refuse an
    /// insertion: the decoding apply's error (a unique index's is the index's own), and nothing
    /// of the stream applied.
    @Test(arguments: [["name": "Ada", "other": 1], ["name": 5], ["name": "Taken"]] as [[String: Value]])
    func aRefusalByTheReplicasRulesIsTheDecodingApplysError(_ record: [String: Value]) throws {
        let directory = try TemporaryDirectory()
        let source = try Store(path: directory.path("source"), options: .testing)
        try source.insert(["name": "Bob"], as: ref("person/0"))
        try source.insert(record, as: ref("person/1"))
        try Self.expectSameRefusal(exported(source), in: directory) { store in
            var person = try Kind("person", keys: ["name": .string])
            person.indexes = [indexOn("name", unique: true)]
            try store.register(person)
            try store.insert(["name": "Taken"], as: ref("person/x"))
        }
    }

    /// Applies `stream` both ways to new stores prepared by `prepare`: the same error, and nothing changed.
    static func expectSameRefusal(_ stream: [UInt8], in directory: TemporaryDirectory, prepare: (Store) throws -> Void = { _ in }) throws {
        let fast = try Store(path: directory.path("fast"), options: .testing)
        let slow = try Store(path: directory.path("slow"), options: .testing)
        try prepare(fast)
        try prepare(slow)
        let journal = try fast.journalEntries()
        let expected = try #require(throws: (any Error).self) { try applyDecoded(stream, to: slow) }
        let error = try #require(throws: (any Error).self) { try apply(stream, to: fast) }
        // The same error, naming each its own store.
        let message = "\(type(of: error)): \(error)".replacingOccurrences(of: fast.path, with: slow.path)
        #expect(message == "\(type(of: expected)): \(expected)")
        #expect(try fast.journalEntries() == journal)
        try expectAlike(fast, slow)
    }

    /// A stream of `entries` (whole commits, contiguous sequences) from store `id`.
    static func stream(of entries: [JournalEntry], from id: UUID) throws -> [UInt8] {
        var bytes: [UInt8] = []
        let header = JournalStreamHeader(storeID: id, firstSequence: entries.first?.sequence ?? 1, lastSequence: entries.last?.sequence ?? 0)
        let writer = try JournalStreamWriter(header: header) { bytes += $0 }
        for entry in entries { try writer.append(entry) }
        try writer.finish()
        return bytes
    }
}
