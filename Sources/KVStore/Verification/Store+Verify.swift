import Foundation

/// What ``Store/verify(progress:)`` found.
public struct VerificationReport: Sendable {
    /// One line per problem found; empty when the store is healthy.
    public var findings: [String] = []
    /// Problems found beyond the first ``findingLimit`` (not listed).
    public var unlisted = 0
    /// Records checked.
    public var records = 0
    /// Kinds the checked records belong to.
    public var kinds = 0
    /// Journal entries checked.
    public var entries = 0
    /// Pages of the store's file checked (LMDB's structure, before anything reads them).
    public var pagesChecked = 0
    /// The trees with damaged pages, in words (`database records`, `the main database`…):
    /// what depends on them was not read. Empty when the file is sound.
    public var damagedTrees: [String] = []
    /// The sequence of the journal's first entry; nil when the journal is empty.
    public var firstSequence: UInt64?
    /// The store's last sequence (its `last-sequence` counter; it stays after truncation).
    public var lastSequence: UInt64 = 0
    /// Whether the journal reached back to the store's creation, so that replaying it was
    /// compared with the records.
    public var replayChecked = false
    /// Why the replay was not compared, when it was not.
    public var replaySkipped: String?

    /// The most findings listed.
    public static let findingLimit = 1000

    /// True when nothing was found.
    public var isHealthy: Bool { findings.isEmpty }

    /// One line: `healthy: 3 records of 2 kinds; journal 1…7 (7 entries); replay matches the records`.
    public var summary: String {
        func count(_ n: Int, _ noun: String, plural: String? = nil) -> String { "\(n) \(n == 1 ? noun : plural ?? noun + "s")" }
        let journal = firstSequence.map { "journal \($0)…\(lastSequence) (\(count(entries, "entry", plural: "entries")))" }
            ?? "journal empty (last sequence \(lastSequence))"
        let replay = replayChecked
            ? (isHealthy ? "replay matches the records" : "replay compared with the records")
            : "replay not checked (\(replaySkipped ?? "not run"))"
        let damage = damagedTrees.isEmpty ? "" : "damaged pages in \(damagedTrees.joined(separator: ", ")); "
        return "\(isHealthy ? "healthy" : count(findings.count + unlisted, "problem")): \(damage)\(count(records, "record")) of \(count(kinds, "kind")); \(journal); \(replay)"
    }

    mutating func add(_ finding: String) {
        if findings.count < Self.findingLimit { findings.append(finding) } else { unlisted += 1 }
    }
}

extension Store {
    /// Checks the store's invariants: every record key names a valid reference, every record
    /// decodes and has only keys a key path can name and no top-level null; the per-kind
    /// counters match the records; modification times (`stamps/`) decode and name records; the
    /// `sync` database agrees with the records of the kinds that sync; the
    /// kind catalog's declarations decode and the records of each closed kind keep its rules; every
    /// index entry is one its record gives and every record has its entries; the
    /// journal's keys are sequences, contiguous from its first entry to the `last-sequence`
    /// counter, every entry decodes and matches its key, commit ids
    /// never go back and none is past `last-commit`, the store's own entries' stamps increase per record. When the journal reaches back to the store's
    /// creation, it is replayed into a temporary store and compared with the records (the
    /// comparison ``forEachDifference(from:_:)`` makes) and the kind catalog.
    ///
    /// ```swift
    /// let report = try store.verify()
    /// if !report.isHealthy { report.findings.forEach { print($0) } }
    /// ```
    /// Everything — the checks, the replay and the comparison — reads one snapshot, so writers
    /// may go on meanwhile (their changes are not verified, and LMDB does not reuse the pages
    /// they free until verify ends). `progress` is called with counts of records and entries
    /// checked.
    ///
    /// First of all, every page of the store's file is checked as LMDB would read it (page
    /// headers, nodes, key order, links between pages: see `Environment.read(checkingPages:)`),
    /// each damaged page is a finding, and nothing reads a tree with damaged pages: verify never
    /// crashes on a damaged file.
    public func verify(progress: ((Int) -> Void)? = nil) throws -> VerificationReport {
        var report = VerificationReport()
        try read(checkingPages: .all) { txn, pages in
            report.add(pages)
            guard pages.isClean(StoreLayout.meta) else {
                report.replaySkipped = "the store's file is damaged"
                return
            }
            let recordsDecode = pages.isClean(StoreLayout.records) ? try checkRecords(txn, into: &report, progress: progress) : false
            if pages.isClean(StoreLayout.records) {
                try checkModificationTimes(txn, into: &report)
                if pages.isClean(StoreLayout.sync) { try checkSyncState(txn, into: &report) }
                try checkCatalog(txn, into: &report)
                if pages.isClean(StoreLayout.indexes) { try checkIndexes(txn, into: &report) }
            }
            let journalSound = pages.isClean(StoreLayout.journal) ? try checkJournal(txn, into: &report, progress: progress) : false
            if !pages.isClean(StoreLayout.journal) { report.lastSequence = try txn.lastSequence() }
            if !pages.isClean {
                report.replaySkipped = "the store's file is damaged"
            } else if !(report.firstSequence == 1 || (report.firstSequence == nil && report.lastSequence == 0)) {
                report.replaySkipped = "the journal does not reach back to the store's creation"
            } else if !journalSound {
                report.replaySkipped = "the journal has problems"
            } else if !recordsDecode {
                report.replaySkipped = "records do not decode"
            } else {
                try checkReplay(in: txn, through: report.lastSequence, into: &report, progress: progress)
            }
        }
        return report
    }

    /// - Returns: whether every record key and record decodes.
    private func checkRecords(_ txn: ReadTransaction, into report: inout VerificationReport, progress: ((Int) -> Void)?) throws -> Bool {
        var counted: [String: Int] = [:]
        var decodes = true
        try txn.transaction.scan(databases.records) { key, value in
            progress?(1)
            report.records += 1
            guard let ref = StoreLayout.ref(fromKey: key) else {
                report.add("a record key is not a valid KIND 0x00 ID: \(Array(key.prefix(80)))")
                decodes = false
                return true
            }
            counted[ref.kind, default: 0] += 1
            if !StoreLayout.recordKey(ref).elementsEqual(key) {
                report.add("record \(ref) is stored under an id not in Unicode NFC (written by an older kvstore): it cannot be found by its id; copy its values to a new record and delete it with the older kvstore")
            }
            let values: [String: Value]
            do { values = try RecordCodec.decode(value) } catch {
                report.add("record \(ref) does not decode: \(error)")
                decodes = false
                return true
            }
            for (key, value) in values.sorted(by: { UTF8Text.precedes($0.key, $1.key) }) {
                if (try? WriteTransaction.checkKey(key)) == nil { report.add("record \(ref) has a key no key path can name: '\(key)'") }
                if !UTF8Text.nfc(key).utf8.elementsEqual(key.utf8) {
                    report.add("record \(ref) has a key not in Unicode NFC (written by an older kvstore): '\(key)'; setting it rewrites the record in NFC")
                }
                if value.isNull { report.add("record \(ref) holds null at its top level, under '\(key)'") }
            }
            return true
        }
        let stored = Dictionary(uniqueKeysWithValues: try txn.kinds().map { ($0.kind, $0.count) })
        report.kinds = counted.count
        for kind in Set(counted.keys).union(stored.keys).sorted(by: UTF8Text.precedes) where counted[kind, default: 0] != stored[kind, default: 0] {
            report.add("the counter of kind \(kind) says \(stored[kind, default: 0]) records, but \(counted[kind, default: 0]) exist")
        }
        return decodes
    }

    /// - Returns: whether the journal is sound enough to replay (contiguous, every entry decodes).
    private func checkJournal(_ txn: ReadTransaction, into report: inout VerificationReport, progress: ((Int) -> Void)?) throws -> Bool {
        let before = report.findings.count + report.unlisted
        report.lastSequence = try txn.lastSequence()
        let lastCommit = try txn.transaction.uint64(forKey: StoreLayout.MetaKey.lastCommit, in: databases.meta) ?? 0
        var previous: (sequence: UInt64, commit: UInt64)?
        var stamps = LocalStampOrder()
        try txn.transaction.scan(databases.journal) { key, value in
            progress?(1)
            report.entries += 1
            guard let sequence = StoreLayout.sequence(fromKey: key) else {
                report.add("a journal key is not an 8-byte sequence: \(Array(key.prefix(16)))")
                return true
            }
            if report.firstSequence == nil { report.firstSequence = sequence }
            if let previous, sequence != previous.sequence + 1 {
                report.add("the journal has a gap: \(entries(previous.sequence + 1, through: sequence - 1)) \(are(previous.sequence + 1, through: sequence - 1)) missing")
            }
            let entry: JournalEntry
            do { entry = try JournalCodec.decode(value, sequence: sequence) } catch {
                report.add((error as? StoreError)?.message ?? "\(error)")
                previous = (sequence, previous?.commit ?? 0)
                return true
            }
            if let previous, entry.commitID < previous.commit {
                report.add("journal entry \(sequence) has commit \(entry.commitID), before the previous entry's commit \(previous.commit)")
            }
            if entry.commitID > lastCommit {
                report.add("journal entry \(sequence) has commit \(entry.commitID), past the last-commit counter \(lastCommit)")
            }
            stamps.check(entry, into: &report)
            previous = (sequence, entry.commitID)
            return true
        }
        if let previous, previous.sequence != report.lastSequence {
            report.add("the journal ends at entry \(previous.sequence), but the last-sequence counter says \(report.lastSequence)")
        }
        return report.findings.count + report.unlisted == before
    }

    /// Replays the journal of `snapshot` into a temporary store and lists how its records differ
    /// from the snapshot's.
    private func checkReplay(in snapshot: ReadTransaction, through last: UInt64, into report: inout VerificationReport, progress: ((Int) -> Void)?) throws {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("kvstore-verify-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = Store.Options()
        options.durability = .noSync
        var differences: [String] = []
        do {
            let replayed = try Store(path: path, options: options)
            try replayJournal(into: replayed, until: .sequence(last), progress: progress) { try $0(snapshot) }
            try forEachDifference(in: snapshot, from: replayed) { difference in
                switch difference {
                case .onlyInFirst(let ref): differences.append("replaying the journal does not make record \(ref)")
                case .onlyInSecond(let ref): differences.append("replaying the journal makes record \(ref), which the store lacks")
                case .valueDiffers(let ref, let key, let stored, let replayed):
                    differences.append("record \(ref) holds \(Self.describe(stored)) at '\(key)', but replaying the journal gives \(Self.describe(replayed))")
                }
                return differences.count <= VerificationReport.findingLimit
            }
            // (A damaged declaration is a finding already: the catalogs are compared when whole.)
            if report.isHealthy { differences += try catalogDifferences(snapshot, replayed) }
        } catch {
            differences.append("replaying the journal fails: \(error)")
        }
        differences.forEach { report.add($0) }
        report.replayChecked = true
    }

    private static func describe(_ value: Value?) -> String {
        value.map { TypedJSON.string(from: $0) } ?? "nothing"
    }
}
