import Foundation
import PropertyBased
import Testing
import TestSupport
@testable import KVStore
import LMDB

/// A journal with every change kind and edge: what ``fillWithEveryChange(_:)`` makes, records
/// with keys and ids that are not ASCII, nested values and references, top-level nulls, records of
/// kinds in turns (their counts kept per run of one kind), a kind keeping modification times,
/// key-path sets, removals, array changes and deletions after them.
func fillWithEveryEdge(_ store: Store) throws {
    try fillWithEveryChange(store)
    try store.write { txn in
        try txn.insert(["café": "naïve", "nested": ["ключ": ["deep": [1, .null, ["x": .date(Date(timeIntervalSince1970: 7))]]]],
                        "ref": .reference(ref("person/ada"))], as: ref("thing/é-1"))
        try txn.insert(["plain": 1, "list": [1, 2, ["a": "b"]], "box": ["inner": ["n": 1]], "empty": [:]], as: ref("thing/2"))
        try txn.insert(["n": .null, "kept": true, "日本": [.bytes(Data([0, 255])), 1.5, -7]], as: ref("thing/3"))
        for index in 0 ..< 12 {
            try txn.insert(["i": .int(Int64(index)), "name": .string("n\(index)")], as: RecordRef(kind: index % 3 == 0 ? "a" : "b", id: "r\(index)"))
        }
        try txn.insert(["title": "stamped"], as: ref("stamped/1"))
    }
    try store.write { txn in
        try txn.setValue("deeper", forKeyPath: "box.inner.n", of: ref("thing/2"))
        try txn.setValue(2, forKey: "plain", of: ref("thing/2"))
        try txn.removeValue(forKey: "empty", of: ref("thing/2"))
        try txn.mutableArray(forKey: "list", of: ref("thing/2")).insert(["x"], at: [1])
        try txn.setValue("again", forKey: "title", of: ref("stamped/1"))
        try txn.delete(ref("thing/3"))
        try txn.delete(ref("a/r3"))
    }
    try store.insert(["late": "after the updates"], as: ref("a/late"))
}

var stampedKind: Kind {
    var kind = try! Kind("stamped")
    kind.tracksModificationTimes = true
    return kind
}

func everyEdgeOptions() -> Store.Options {
    var options = Store.Options.testing
    options.kinds = [stampedKind]
    return options
}

/// Applies `source`'s whole journal to `store` through ``JournalApplier/apply(_:from:)``.
@discardableResult
private func applyEncoded(_ source: Store, to store: Store, after cursor: UInt64 = 0, limit: Int = .max) throws -> JournalApplier.Outcome {
    let batch = try source.read { try $0.sourceEntries(after: cursor, limit: limit) }
    var total = JournalApplier.Outcome()
    var next = 0
    while next < batch.count {
        let (outcome, end) = try JournalApplier(store: store, mode: .replica(source: source.id)).apply(batch, from: next)
        total.applied += outcome.applied
        total.skipped += outcome.skipped
        next = end
    }
    return total
}

/// Applies `source`'s whole journal to `store` decoded, commit by commit (the decoding path).
private func applyDecoded(_ source: Store, to store: Store) throws {
    let entries = try source.journalEntries()
    let commits = Dictionary(grouping: entries, by: \.commitID).sorted { $0.key < $1.key }.map(\.value)
    _ = try JournalApplier(store: store, mode: .replica(source: source.id)).apply(commits[...])
}

/// Replication with record insertions applied as their bytes against the decoding apply.
@Suite struct EncodedApplyDifferentialTests {
    /// The journal of every edge, from a source and from a replica of it (entries with origins),
    /// applied as bytes and decoded: the same records byte for byte, the same journal but for
    /// each store's commit time, the same counts, checkpoints and modification times.
    @Test func theEncodedApplyStoresAndJournalsWhatTheDecodingApplyDoes() throws {
        let (directory, source, middle) = try Self.chain(applying: applyDecoded)
        for (name, from) in [("source", source), ("middle", middle)] {
            let batch = try from.read { try $0.sourceEntries(after: 0, limit: .max) }
            let encoded = batch.entries.filter { if case .encoded = $0.form { true } else { false } }.count
            #expect(encoded >= 15 && encoded < batch.count, "\(name): \(encoded) of \(batch.count) kept encoded")
            let fast = try Store(path: directory.path("fast-\(name)"), options: everyEdgeOptions())
            let slow = try Store(path: directory.path("slow-\(name)"), options: everyEdgeOptions())
            let outcome = try applyEncoded(from, to: fast)
            try applyDecoded(from, to: slow)
            // The kind's declaration: every store here declared it when opened.
            let declared = try from.journalEntries().filter { $0.change == .kindDeclared }.count
            #expect(declared == 1 && outcome.applied == batch.count - declared && outcome.skipped == declared)
            let differential = PassThroughDifferentialTests()
            #expect(try differential.rawRecords(fast) == differential.rawRecords(slow), "\(name)")
            #expect(try differential.rawRecords(fast) == differential.rawRecords(source), "\(name)")
            #expect(try differential.journalWithoutTimes(fast) == differential.journalWithoutTimes(slow), "\(name)")
            for store in [fast, slow] {
                #expect(try store.read { try $0.kinds().map { "\($0.kind) \($0.count)" } } == source.read { try $0.kinds().map { "\($0.kind) \($0.count)" } })
                #expect(try store.read { try $0.replicationCheckpoint(for: from.id) } == from.read { try $0.lastSequence() })
                #expect(try store.read { try $0.lastSequence() } == from.read { try $0.lastSequence() })
                #expect(try store.verify().isHealthy)
            }
            let stamps = { (store: Store) in try store.read { try $0.modificationTimes(of: ref("stamped/1")) } }
            #expect(try stamps(fast) == stamps(slow) && stamps(fast).count == 1)
            // One commit id per source commit, as the decoding apply gives.
            #expect(try fast.journalEntries().map(\.commitID) == slow.journalEntries().map(\.commitID))
        }
        // Applied again: everything skipped, nothing written.
        let fast = try Store(path: directory.path("fast-source"), options: everyEdgeOptions())
        let journal = try PassThroughDifferentialTests().journalWithoutTimes(fast)
        let again = try applyEncoded(source, to: fast)
        let last = try source.read { try $0.lastSequence() }
        #expect(again.applied == 0 && UInt64(again.skipped) == last)
        #expect(try PassThroughDifferentialTests().journalWithoutTimes(fast) == journal)
    }

    /// The map of a replica filling up mid-batch: the write's body runs again in a larger map,
    /// with its scratch buffers and per-kind counts made anew, and stores what the decoding apply does.
    @Test func aMapGrowingMidBatchStoresWhatTheDecodingApplyDoes() throws {
        let directory = try TemporaryDirectory()
        let source = try Store(path: directory.path("source"), options: everyEdgeOptions())
        try fillWithEveryEdge(source)
        try source.write { txn in
            for index in 0 ..< 300 {
                try txn.insert(["i": .int(Int64(index)), "pad": .string(String(repeating: "x", count: 200))],
                               as: RecordRef(kind: ["a", "b", "c"][index % 7 % 3], id: "p\(index)"))
            }
        }
        var small = everyEdgeOptions()
        small.mapSize = 64 << 10
        let fast = try Store(path: directory.path("fast"), options: small)
        let slow = try Store(path: directory.path("slow"), options: everyEdgeOptions())
        try applyEncoded(source, to: fast)
        try applyDecoded(source, to: slow)
        #expect(fast.environment.currentMapSize > 64 << 10)
        let differential = PassThroughDifferentialTests()
        #expect(try differential.rawRecords(fast) == differential.rawRecords(slow))
        #expect(try differential.journalWithoutTimes(fast) == differential.journalWithoutTimes(slow))
        #expect(try fast.read { try $0.kinds().map { "\($0.kind) \($0.count)" } } == source.read { try $0.kinds().map { "\($0.kind) \($0.count)" } })
        #expect(try fast.verify().isHealthy)
    }

    /// A source holding every edge, and a replica of it made by `apply` (its entries have origins).
    private static func chain(applying apply: (Store, Store) throws -> Void) throws -> (TemporaryDirectory, source: Store, middle: Store) {
        let directory = try TemporaryDirectory()
        let source = try Store(path: directory.path("source"), options: everyEdgeOptions())
        try fillWithEveryEdge(source)
        let middle = try Store(path: directory.path("middle"), options: everyEdgeOptions())
        try apply(source, middle)
        return (directory, source, middle)
    }

    /// The middle store's journal applied back to the source: every entry originated there, so
    /// every one is skipped, encoded or not.
    @Test func entriesThatOriginatedInTheStoreAreSkipped() throws {
        // The directory is kept until the end: a store whose files are removed refuses writes.
        let (directory, source, middle) = try Self.chain(applying: { try applyEncoded($0, to: $1) })
        let journal = try source.journalEntries()
        let back = try applyEncoded(middle, to: source)
        #expect(back.applied == 0 && back.skipped == journal.count)
        #expect(try source.journalEntries() == journal)
        withExtendedLifetime(directory) {}
    }
}

/// What ``EncodedInsertion/reading(_:sequence:)`` vouches for, and the errors of the encoded apply.
@Suite struct EncodedInsertionTests {
    private func reading(_ bytes: [UInt8], sequence: UInt64) -> (insertion: EncodedInsertion, commitID: UInt64)? {
        bytes.withUnsafeBytes { EncodedInsertion.reading($0, sequence: sequence) }
    }

    private func insertion(_ values: [String: Value], ref: RecordRef = ref("person/ada"), origin: JournalOrigin? = nil, sequence: UInt64 = 5) -> JournalEntry {
        JournalEntry(sequence: sequence, commitID: 3, timestamp: Date(timeIntervalSince1970: 1), origin: origin, ref: ref,
                     keyPath: nil, change: .recordInserted, oldValue: nil, newValue: .dictionary(values))
    }

    /// Generated insertions (every value tag, keys and ids ASCII or not, with and without an
    /// origin) and damaged versions of them: whatever is vouched for decodes, as the decoder
    /// reads it, to a record insertion whose copied values (the record, the reference) are
    /// exactly what the encoder writes for it, with the commit, origin, kind and id it says.
    @Test func whatIsVouchedForDecodesToTheSameInsertionWrittenAsTheEncoderWritesIt() async {
        await propertyCheck(count: 60, input: Gen.uint64()) { seed in
            var sampler = ValueSampler(seed: seed, asciiKeysOnly: seed % 2 == 0)
            let origin = seed % 3 == 0 ? nil : JournalOrigin(storeID: UUID(), sequence: seed % 1_000)
            let entry = insertion(sampler.record(), ref: sampler.reference(), origin: origin, sequence: 1 + seed % 500)
            let bytes = JournalCodec.encode(entry)
            var vouched = 0
            for damaged in [bytes] + (0 ..< 60).map({ _ in sampler.damaged(bytes) }) {
                guard let (read, commit) = reading(damaged, sequence: entry.sequence) else { continue }
                vouched += 1
                let decoded = damaged.withUnsafeBytes { buffer in
                    Result { () throws(StoreError) in try JournalCodec.decode(buffer, sequence: entry.sequence, keepingRecordsEncoded: true) }
                }
                guard case .success(let decoded) = decoded else { Issue.record("vouched for, refused by the decoder: \(damaged)"); continue }
                #expect(decoded.change == .recordInserted && !decoded.isDerived && decoded.keyPath == nil && decoded.oldValue == nil && decoded.indexes == nil)
                #expect(decoded.commitID == commit)
                #expect(Array(damaged[read.reference]) == EncodingPieces.tagged(.reference(decoded.ref)))
                #expect(String(decoding: damaged[read.kind], as: UTF8.self) == decoded.ref.kind)
                #expect(String(decoding: damaged[read.id], as: UTF8.self) == decoded.ref.id)
                let record = decoded.encodedNewRecord ?? []
                #expect(Array(damaged[read.record]) == [ValueCodec.Tag.dictionary] + record.dropFirst(), "\(damaged)")
                if let store = read.originStore {
                    #expect(decoded.origin?.storeID.lowercasedText == String(decoding: damaged[store], as: UTF8.self))
                    #expect(decoded.origin?.sequence == read.originSequence)
                } else {
                    #expect(decoded.origin == nil)
                }
            }
            let plain = entry.ref.id.utf8.allSatisfy { $0 < 0x80 } && sampler.asciiKeysOnly
            if plain { #expect(vouched > 0, "the undamaged insertion of \(entry.ref) is vouched for") }
        }
    }

    /// What is not vouched for is decoded: another change, a derived insertion, an id that is
    /// not ASCII, an origin written in capitals, a top-level null, a sequence other than the key's.
    @Test func entriesItCannotVouchForAreLeftToTheDecoder() throws {
        #expect(reading(JournalCodec.encode(insertion(["a": 1])), sequence: 5) != nil)
        var setting = insertion(["a": 1])
        setting.change = .setting
        setting.keyPath = "a"
        setting.newValue = 1
        #expect(reading(JournalCodec.encode(setting), sequence: 5) == nil)
        var derived = insertion(["a": 1])
        derived.isDerived = true
        #expect(reading(JournalCodec.encode(derived), sequence: 5) == nil)
        #expect(reading(JournalCodec.encode(insertion(["a": 1], ref: ref("person/é"))), sequence: 5) == nil)
        #expect(reading(JournalCodec.encode(insertion(["a": 1, "n": .null])), sequence: 5) == nil)
        #expect(reading(JournalCodec.encode(insertion(["a": 1])), sequence: 6) == nil)
        let store = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let lower = JournalCodec.encode(insertion(["a": 1], origin: JournalOrigin(storeID: store, sequence: 9)))
        #expect(reading(lower, sequence: 5)?.insertion.originSequence == 9)
        let text = Array(store.lowercasedText.utf8)
        let at = try #require(lower.firstRange(of: text))
        var upper = lower
        upper.replaceSubrange(at, with: Array(store.uuidString.utf8))
        #expect(reading(upper, sequence: 5) == nil)
        // The decoder reads it; applied, it is journaled in the encoder's lowercase.
        #expect(try upper.withUnsafeBytes { try JournalCodec.decode($0, sequence: 5) }.origin?.storeID == store)
    }

    /// A batch read for a replica holds whole commits: past the limit, the rest of the last
    /// commit, and no further; an entry after it that does not read (its commit unknown: it may
    /// be the last commit's) is read all the same, and refused.
    @Test func batchesHoldWholeCommitsAndRefuseAnEntryThatDoesNotRead() throws {
        let source = try TemporaryStore()
        try source.store.write { txn in
            for index in 0 ..< 3 { try txn.insert(["i": .int(Int64(index))], as: RecordRef(kind: "a", id: "\(index)")) }
        }
        try source.store.write { txn in
            for index in 3 ..< 6 { try txn.insert(["i": .int(Int64(index))], as: RecordRef(kind: "a", id: "\(index)")) }
        }
        #expect(try source.store.read { try $0.sourceEntries(after: 0, limit: 1) }.count == 3)
        #expect(try source.store.read { try $0.sourceEntries(after: 0, limit: 4) }.count == 6)
        #expect(try source.store.read { try $0.sourceEntries(after: 1, limit: 2) }.count == 2)
        try source.store.environment.write { txn in
            try txn.put(StoreLayout.sequenceKey(4), [ValueCodec.version, 0xFF], in: source.store.databases.journal)
        }
        for cursor: UInt64 in [0, 3] {
            #expect(performing: { try source.store.read { try $0.sourceEntries(after: cursor, limit: 3) } }, throws: {
                ($0 as? StoreError)?.message.hasPrefix("journal entry 4 is corrupt") == true
            })
        }
    }

    /// A record to insert that the replica holds already: the divergence error of the decoding
    /// apply, naming the entry and its commit, and nothing of the batch written.
    @Test func aRecordThatExistsIsDivergenceAndNothingIsWritten() throws {
        let source = try TemporaryStore()
        try source.store.insert(["name": "Ada"], as: ref("person/ada"))
        try source.store.write { txn in
            try txn.insert(["name": "Bob"], as: ref("person/bob"))
            try txn.insert(["name": "Cy"], as: ref("person/cy"))
        }
        let replica = try TemporaryStore()
        try replica.store.insert(["name": "Someone else"], as: ref("person/cy"))
        let journal = try replica.store.journalEntries()
        let commit = try #require(try source.store.journalEntries().last?.commitID)
        #expect(performing: { try applyEncoded(source.store, to: replica.store) }, throws: applyError(
            .diverged, "diverged at source sequence 3 (recordInserted of person/cy): person/cy to insert already exists; nothing of commit \(commit) was applied"))
        #expect(try replica.store.journalEntries() == journal)
        #expect(try replica.store.read { try $0.count(ofKind: "person") } == 1)
        #expect(try replica.store.read { try $0.replicationCheckpoint(for: source.store.id) } == 0)
    }

    /// Entries after a gap in what the replica applied: the decoding apply's gap error, nothing written.
    @Test func entriesAfterAGapAreRefusedAndNothingIsWritten() throws {
        let source = try TemporaryStore()
        for index in 0 ..< 4 { try source.store.insert(["i": .int(Int64(index))], as: RecordRef(kind: "a", id: "\(index)")) }
        let replica = try TemporaryStore()
        #expect(try applyEncoded(source.store, to: replica.store, limit: 1).applied == 1)
        #expect(performing: { try applyEncoded(source.store, to: replica.store, after: 2) }, throws: applyError(
            .gap, "source entry 2 is missing: \(replica.store.path) has applied the source through 1, the next entry offered is 3"))
        #expect(try replica.store.read { try $0.count(ofKind: "a") } == 1)
        #expect(try applyEncoded(source.store, to: replica.store, after: 1).applied == 3)
        #expect(try allRecords(replica.store) == allRecords(source.store))
    }

    /// Rewrites journal entry `sequence` with its first byte of `text` (a string's) made 0xFF: not UTF-8.
    private static func damage(entry sequence: UInt64, of store: Store, at text: String) throws {
        let entry = try #require(try store.journalEntries(from: sequence, limit: 1).first)
        var bytes = JournalCodec.encode(entry)
        bytes[try #require(bytes.firstRange(of: Array(text.utf8))).lowerBound] = 0xFF
        try store.environment.write { txn in try txn.put(StoreLayout.sequenceKey(sequence), bytes, in: store.databases.journal) }
    }

    /// An entry past the batch limit whose commit id does not read may belong to the commit the
    /// limit reached: the batch cannot end before it (that would apply a commit cut short), so
    /// the replicator stops with the entry's error and nothing of its commit is applied.
    @Test func aCommitWhoseLaterEntryIsCorruptIsNotAppliedInPart() throws {
        let source = try TemporaryStore()
        let directory = try TemporaryDirectory()
        try source.store.write { txn in
            for index in 0 ..< 3 { try txn.insert(["i": .int(Int64(index))], as: RecordRef(kind: "a", id: "\(index)")) }
        }
        let entry = try #require(try source.store.journalEntries(from: 2, limit: 1).first)
        var bytes = JournalCodec.encode(entry)
        let commit = try #require(bytes.firstRange(of: Array("commit".utf8)))
        bytes[commit.upperBound] = 0xFF  // the commit id's tag: no value tag
        try source.store.environment.write { txn in try txn.put(StoreLayout.sequenceKey(2), bytes, in: source.store.databases.journal) }
        var options = Replicator.Options()
        options.batchLimit = 1
        #expect(performing: { try Replicator(source: source.store, replicaPath: directory.path("replica"), options: options).run() }, throws: {
            ($0 as? StoreError)?.message.hasPrefix("journal entry 2 is corrupt") == true
        })
        let replica = try Store(path: directory.path("replica"))
        #expect(try replica.read { try $0.count(ofKind: "a") } == 0)
        #expect(try replica.journalEntries().isEmpty)
        #expect(try replica.read { try $0.replicationCheckpoint(for: source.store.id) } == 0)
    }

    /// A corrupt entry that is not an insertion, after insertions that go in as their bytes, in
    /// one batch: the replicator stops with one error naming it, and nothing of the batch is written.
    @Test func aCorruptEntryAfterEncodedInsertionsStopsTheReplicatorBeforeAnythingIsWritten() throws {
        let source = try TemporaryStore()
        let directory = try TemporaryDirectory()
        try source.store.write { txn in
            for index in 0 ..< 5 { try txn.insert(["i": .int(Int64(index))], as: RecordRef(kind: "a", id: "\(index)")) }
        }
        try source.store.setValue("x", forKey: "name", of: ref("a/1"))
        try Self.damage(entry: 6, of: source.store, at: "name")
        #expect(performing: { try Replicator(source: source.store, replicaPath: directory.path("replica")).run() }, throws: {
            ($0 as? StoreError)?.message.hasPrefix("journal entry 6 is corrupt") == true
        })
        let replica = try Store(path: directory.path("replica"))
        #expect(try replica.read { try $0.count(ofKind: "a") } == 0)
        #expect(try replica.journalEntries().isEmpty)
        #expect(try replica.read { try $0.replicationCheckpoint(for: source.store.id) } == 0)
    }
}
