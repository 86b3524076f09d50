import Foundation
import PropertyBased
import Testing
import TestSupport
@testable import KVStore
import LMDB

/// Replication with inserted records passed through against the path it replaced (decode the
/// record, drop its top-level nulls, encode it): same entries, same journal bytes, same records.
@Suite struct PassThroughDifferentialTests {
    /// What the old path journals for a record insertion read as `entry`: the record decoded,
    /// its top-level nulls dropped, encoded again.
    static func oldPathBytes(_ entry: JournalEntry) -> [UInt8] {
        var entry = entry
        guard entry.change == .recordInserted, let values = entry.newValue?.dictionaryValue else { return JournalCodec.encode(entry) }
        let checked = values.filter { !$0.value.isNull }
        entry.newValue = .dictionary(checked)
        return JournalCodec.encode(entry, encodedNew: RecordCodec.encode(checked))
    }

    static func decode(_ bytes: [UInt8], keeping: Bool) -> Result<JournalEntry?, ValueDecodingError> {
        bytes.withUnsafeBytes { buffer in
            Result { () throws(ValueDecodingError) in try JournalCodec.decodeDirectly(buffer, keepingRecordsEncoded: keeping) }
        }
    }

    /// Damaged record insertions: an entry read with its record kept encoded is equal to (and
    /// hashes as) what the generic decoder reads, and journals again exactly as the old path does.
    @Test func damagedInsertionsJournalAsTheOldPathDoes() async {
        await propertyCheck(count: 80, input: Gen.uint64()) { seed in
            var sampler = ValueSampler(seed: seed)
            let entry = JournalEntry(
                sequence: 1 + seed % 1000, commitID: 7, timestamp: Date(timeIntervalSince1970: 1), origin: JournalOrigin(storeID: UUID(), sequence: 3),
                ref: ref("thing/1"), keyPath: nil, change: .recordInserted, oldValue: nil,
                newValue: .dictionary(sampler.dictionary(depth: 1)))
            let bytes = JournalCodec.encode(entry)
            for damaged in [bytes] + (0 ..< 60).map({ _ in sampler.damaged(bytes) }) {
                let generic = Result { try JournalEntry(dictionary: RecordCodec.decode(damaged)) }
                switch (Self.decode(damaged, keeping: true), generic) {
                case (.success(let kept?), .success(let expected)):
                    #expect(kept == expected && kept.hashValue == expected.hashValue, "\(damaged)")
                    #expect(Set([kept, expected]).count == 1)
                    if kept.encodedNewRecord != nil {
                        #expect(JournalCodec.encode(kept) == Self.oldPathBytes(expected), "\(damaged)")
                    }
                    if case .success(let plain?) = Self.decode(damaged, keeping: false) {
                        #expect(plain == kept && JournalCodec.encode(plain) == JournalCodec.encode(expected))
                    }
                case (.success(.some), .failure):
                    Issue.record("read with its record kept, refused by the generic decoder: \(damaged)")
                default:
                    break
                }
            }
        }
    }

    /// Two records that differ only in Unicode normalization are equal values with equal hashes,
    /// kept encoded or not; each passes through as its own bytes.
    @Test func entriesEqualAsValuesHashAlikeWhateverTheirBytes() throws {
        func insertion(_ text: String) -> JournalEntry {
            JournalEntry(sequence: 1, commitID: 1, timestamp: Date(timeIntervalSince1970: 1), ref: ref("p/1"),
                         keyPath: nil, change: .recordInserted, oldValue: nil, newValue: ["name": .string(text)])
        }
        let composed = JournalCodec.encode(insertion("é")), decomposed = JournalCodec.encode(insertion("e\u{301}"))
        #expect(composed != decomposed)
        let entries = try [composed, decomposed].flatMap { bytes in
            [try #require(try Self.decode(bytes, keeping: true).get()), try #require(try Self.decode(bytes, keeping: false).get())]
        }
        #expect(entries[0].encodedNewRecord != nil && entries[2].encodedNewRecord != nil)
        #expect(Set(entries).count == 1)
        #expect(Set(entries.map(\.hashValue)).count == 1)
        #expect(JournalCodec.encode(entries[0]) == composed && JournalCodec.encode(entries[2]) == decomposed)
    }

    /// Generated records (every tag, keys ASCII or not, nested nulls) replicated with the
    /// replicator (records passed through) and by the old path (records decoded and encoded):
    /// the same records, byte for byte, as the source's; the same journal but for the replicas'
    /// own commit times; then a replica of the replica, the same again; `verify` healthy, no
    /// difference.
    @Test func replicasJournalAndStoreWhatTheOldPathDid() throws {
        let storeOptions = Store.Options.testing
        let source = try TemporaryStore(options: storeOptions)
        let directory = try TemporaryDirectory()
        var sampler = ValueSampler(seed: 0xD1FF)
        for commit in 0 ..< 40 {
            try source.store.write { txn in
                for index in 0 ..< 5 {
                    // Top-level keys a key path can name (a store refuses others).
                    var record = sampler.dictionary(depth: 1).filter { (try? WriteTransaction.checkKey($0.key)) != nil }
                    if index == 0 { record["n"] = .null }   // top-level nulls are dropped
                    try txn.insert(record, as: try RecordRef(kind: "thing", id: "\(commit)-\(index)"))
                }
                if commit % 3 == 0 { try txn.setValue(.int(Int64(commit)), forKey: "k", of: try RecordRef(kind: "thing", id: "\(commit)-1")) }
                if commit % 4 == 1 { try txn.delete(try RecordRef(kind: "thing", id: "\(commit - 1)-2")) }
            }
        }
        var options = Replicator.Options()
        options.batchLimit = 17   // batches that cut commits
        options.replicaOptions = storeOptions
        try Replicator(source: source.store, replicaPath: directory.path("replica"), options: options).run()
        let replica = try Store(path: directory.path("replica"), options: storeOptions)
        let old = try Store(path: directory.path("old"), options: storeOptions)
        let entries = try source.store.journalEntries()
        let commits = Dictionary(grouping: entries, by: \.commitID).sorted { $0.key < $1.key }.map(\.value)
        _ = try JournalApplier(store: old, mode: .replica(source: source.store.id)).apply(commits[...])
        #expect(try rawRecords(replica) == rawRecords(source.store))
        #expect(try rawRecords(old) == rawRecords(source.store))
        #expect(try journalWithoutTimes(replica) == journalWithoutTimes(old))
        #expect(try replica.verify().isHealthy)
        try replica.forEachDifference(from: source.store) { difference in
            Issue.record("\(difference)")
            return true
        }
        // A replica of the replica: the source's origins, the same bytes again.
        try Replicator(source: replica, replicaPath: directory.path("chained"), options: options).run()
        let chained = try Store(path: directory.path("chained"), options: storeOptions)
        #expect(try rawRecords(chained) == rawRecords(source.store))
        #expect(try journalWithoutTimes(chained) == journalWithoutTimes(replica))
        #expect(try chained.journalEntries().allSatisfy { $0.origin?.storeID == source.store.id })
        #expect(try chained.verify().isHealthy)
    }

    /// Every record's key and stored bytes.
    func rawRecords(_ store: Store) throws -> [[UInt8]: [UInt8]] {
        try store.read { txn in
            var records: [[UInt8]: [UInt8]] = [:]
            try txn.transaction.scan(store.databases.records, from: []) { key, value in
                records[Array(key)] = Array(value)
                return true
            }
            return records
        }
    }

    /// Every journal entry's bytes without its timestamp (the last field: 8 bytes at the end),
    /// which is the writing store's commit time, nor — for a local entry — its stamp, which is
    /// the writing store's clock (an entry with an origin keeps its source's: compared).
    func journalWithoutTimes(_ store: Store) throws -> [[UInt8]] {
        try store.read { txn in
            var entries: [[UInt8]] = []
            try txn.transaction.scan(store.databases.journal, from: StoreLayout.sequenceKey(1)) { key, value in
                // A local entry's stamp is the store's own clock too: left out (the entry encoded without it).
                var entry = try JournalCodec.decode(value, sequence: StoreLayout.sequence(fromKey: key)!)
                if entry.origin == nil { entry.stamp = nil }
                entries.append(entry.origin == nil ? Array(JournalCodec.encode(entry).dropLast(8)) : Array(value.dropLast(8)))
                return true
            }
            return entries
        }
    }
}
