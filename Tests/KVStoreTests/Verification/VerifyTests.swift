import Foundation
import Testing
@testable import KVStore
import LMDB
import TestSupport

/// `verify`: a healthy store has no findings; each broken invariant is one finding.
@Suite struct VerifyTests {
    let t: TemporaryStore

    init() throws {
        t = try TemporaryStore()
        try fillWithEveryChange(t.store)
    }

    func corrupt(_ body: (LMDB.Transaction, StoreDatabases) throws -> Void) throws {
        try t.store.environment.write { txn in try body(txn, t.store.databases) }
    }

    @Test func aHealthyStoreHasNoFindings() throws {
        let report = try t.store.verify()
        #expect(report.findings == [])
        #expect(report.replayChecked && report.records == 2 && report.kinds == 1)
        #expect(report.summary.hasPrefix("healthy: 2 records of 1 kind; journal 1…"))
    }

    @Test func theSummaryCountsOneJournalEntryInTheSingular() throws {
        let one = try TemporaryStore()
        try one.store.insert(["n": 1], as: ref("n/1"))
        #expect(try one.store.verify().summary == "healthy: 1 record of 1 kind; journal 1…1 (1 entry); replay matches the records")
    }

    @Test func aTruncatedOrEmptiedJournalIsCheckedButNotReplayed() throws {
        let last = try t.store.read { try $0.lastSequence() }
        try t.store.truncateJournal(before: 3)
        var report = try t.store.verify()
        #expect(report.isHealthy && report.firstSequence == 3 && report.lastSequence == last)
        #expect(!report.replayChecked && report.replaySkipped == "the journal does not reach back to the store's creation")
        try t.store.truncateJournal(before: last + 1)
        report = try t.store.verify()
        #expect(report.isHealthy && report.firstSequence == nil && report.entries == 0 && !report.replayChecked)
        #expect(report.summary.hasPrefix("healthy: 2 records of 1 kind; journal empty (last sequence \(last))"))
    }

    @Test func findsARecordThatDoesNotDecode() throws {
        try corrupt { txn, db in try txn.put(StoreLayout.recordKey(ref("person/ada")), [1, 0xEE, 0xFF], in: db.records) }
        let report = try t.store.verify()
        #expect(report.findings.count == 1 && report.findings[0].hasPrefix("record person/ada does not decode"))
        #expect(report.summary.hasPrefix("1 problem: ") && report.summary.hasSuffix("replay not checked (records do not decode)"))
    }

    @Test func findsAGapInTheJournal() throws {
        try corrupt { txn, db in _ = try txn.delete(StoreLayout.sequenceKey(3), in: db.journal) }
        let report = try t.store.verify()
        #expect(report.findings == ["the journal has a gap: entry 3 is missing"])
        #expect(!report.replayChecked && report.summary.hasSuffix("replay not checked (the journal has problems)"))
    }

    @Test func findsACounterThatDisagreesWithTheRecords() throws {
        try corrupt { txn, db in try txn.put(StoreLayout.MetaKey.count("person"), StoreLayout.uint64(5), in: db.meta) }
        #expect(try t.store.verify().findings == ["the counter of kind person says 5 records, but 2 exist"])
    }

    @Test func findsRecordsThatTheJournalDoesNotExplain() throws {
        try corrupt { txn, db in
            try txn.put(StoreLayout.recordKey(ref("person/bob")), RecordCodec.encode(["name": "Eve"]), in: db.records)
            try txn.put(StoreLayout.recordKey(ref("person/zed")), RecordCodec.encode(["name": "Zed"]), in: db.records)
            try txn.put(StoreLayout.MetaKey.count("person"), StoreLayout.uint64(3), in: db.meta)
        }
        let findings = try t.store.verify().findings
        #expect(findings.contains { $0.hasPrefix(#"record person/bob holds "Eve" at 'name', but replaying the journal gives "Bob""#) })
        #expect(findings.contains("replaying the journal does not make record person/zed"))
    }

    @Test func findsJournalEntriesThatDoNotDecodeOrDoNotMatchTheirCounters() throws {
        try corrupt { txn, db in
            try txn.put(StoreLayout.sequenceKey(2), [1, 2, 3], in: db.journal)
            try txn.put(StoreLayout.MetaKey.lastSequence, StoreLayout.uint64(99), in: db.meta)
        }
        let findings = try t.store.verify().findings
        #expect(findings.contains { $0.hasPrefix("journal entry 2 is corrupt") })
        #expect(findings.contains { $0.hasSuffix("but the last-sequence counter says 99") })
    }

    @Test func writesMadeWhileItVerifiesAreNotFindings() throws {
        // Another writer commits while verify runs (here: once it has started checking records);
        // the replay comparison must be made against the snapshot that was checked.
        let store = t.store
        let failures = Failures()
        var wrote = false
        let report = try store.verify { _ in
            guard !wrote else { return }
            wrote = true
            let done = DispatchSemaphore(value: 0)
            Thread {
                do {
                    try store.insert(["name": "Eve"], as: ref("person/eve"))
                    try store.setValue("Robert", forKey: "name", of: ref("person/bob"))
                } catch { failures.add("\(error)") }
                done.signal()
            }.start()
            done.wait()
        }
        #expect(failures.all == [])
        #expect(report.findings == [] && report.replayChecked && report.records == 2)
        #expect(try store.value(forKey: "name", of: ref("person/eve")) == "Eve")
        #expect(try store.verify().isHealthy)
    }

    @Test func differencesAreListedByRecordAndKey() throws {
        let other = try TemporaryStore()
        try apply(exported(t.store), to: other.store)
        var differences: [RecordDifference] = []
        try t.store.forEachDifference(from: other.store) { differences.append($0); return true }
        #expect(differences.isEmpty)
        try other.store.promote()
        try other.store.setValue("Robert", forKey: "name", of: ref("person/bob"))
        try other.store.removeValue(forKey: "meta", of: ref("person/bob"))
        try other.store.delete(ref("person/ada"))
        try other.store.insert(["x": 1], as: ref("place/paris"))
        try t.store.forEachDifference(from: other.store) { differences.append($0); return true }
        #expect(differences == [
            .onlyInFirst(ref("person/ada")),
            .valueDiffers(ref("person/bob"), key: "meta", first: ["$weird": 1], second: nil),
            .valueDiffers(ref("person/bob"), key: "name", first: "Bob", second: "Robert"),
            .onlyInSecond(ref("place/paris")),
        ])
    }
}

/// A damaged journal counter refuses the write with one clear error instead of overflowing
/// (the page-damage fuzz target found `last-sequence` = 2^64 − 1 trapping in the next insert).
@Suite struct DamagedJournalCounterTests {
    @Test(arguments: [
        (StoreLayout.MetaKey.lastSequence, "last-sequence", UInt64.max),
        (StoreLayout.MetaKey.lastCommit, "last-commit", UInt64.max),
        (StoreLayout.MetaKey.lastSequence, "last-sequence", UInt64(Int64.max)),
    ])
    func aCounterAtItsLimitRefusesTheWrite(key: [UInt8], name: String, value: UInt64) throws {
        let t = try TemporaryStore()
        try t.store.insert(["n": 1], as: ref("n/1"))
        try t.store.environment.write { txn in try txn.put(key, StoreLayout.uint64(value), in: t.store.databases.meta) }
        let error = try #require(throws: StoreError.self) { try t.store.insert(["n": 2], as: ref("n/2")) }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("the \(name) counter in meta is \(value)"))
        #expect(try t.store.read { try $0.contains(ref("n/2")) } == false)
    }
}

/// A record counter past `Int.max` is damage: reading it is one clear error, not a trap (the
/// page-damage fuzz target found `count/<kind>` = 2^64 − 1 trapping in `kinds()` under verify).
@Suite struct DamagedRecordCounterTests {
    @Test func aCounterPastIntMaxIsOneClearError() throws {
        let t = try TemporaryStore()
        try t.store.insert(["n": 1], as: ref("n/1"))
        try t.store.environment.write { txn in
            try txn.put(StoreLayout.MetaKey.count("n"), StoreLayout.uint64(.max), in: t.store.databases.meta)
        }
        for read in [{ try t.store.read { try $0.kinds() }.count }, { try t.store.read { try $0.count(ofKind: "n") } }] {
            let error = try #require(throws: StoreError.self) { _ = try read() }
            #expect(error.code == .corrupt)
            #expect(error.message.contains("the record counter of kind 'n' in meta is 18446744073709551615"))
        }
    }
}
