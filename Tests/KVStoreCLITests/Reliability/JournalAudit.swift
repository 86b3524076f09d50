import Foundation
import KVStore

/// Proves a store's journal and records agree exactly, beyond what `verify` compares (the records
/// against the journal's replay, which shows the net effect only): replaying the journal from an
/// empty store, every entry's old value is what the entries before it left there — so no committed
/// change is missing from the journal, even one a later change overwrote — and the result is the
/// records, neither more nor less. Also: commit ids strictly increase from one commit to the next
/// and each commit's entries are contiguous.
///
/// ```swift
/// let findings = try JournalAudit.findings(in: "/tmp/store")   // [] when they agree
/// ```
/// Covers what the crash and concurrency workloads write: record inserts and deletes, and sets
/// of top-level keys; any other entry is reported as a finding rather than skipped.
enum JournalAudit {
    static func findings(in path: String) throws -> [String] {
        var options = Store.Options()
        options.createIfMissing = false
        options.readOnly = true
        let store = try Store(path: path, options: options)
        return try store.read { txn in
            var findings: [String] = []
            var state: [RecordRef: [String: Value]] = [:]
            var expected: UInt64 = 1
            var commit: UInt64 = 0
            try txn.forEachJournalEntry(from: 1) { entry in
                if entry.sequence != expected { findings.append("entry \(entry.sequence) where \(expected) was expected") }
                expected = entry.sequence + 1
                if entry.commitID < commit { findings.append("entry \(entry.sequence): commit \(entry.commitID) after commit \(commit)") }
                commit = entry.commitID
                if !entry.isDerived, let problem = apply(entry, to: &state) {
                    findings.append("entry \(entry.sequence) (\(entry.change.rawValue) \(entry.ref) \(entry.keyPath ?? "")): \(problem)")
                }
                return findings.count < 20
            }
            if try txn.lastSequence() != expected - 1 { findings.append("the journal ends at \(expected - 1), the last sequence is \(try txn.lastSequence())") }
            var stored = 0
            try txn.forEachRecord { record in
                stored += 1
                if state[record.ref] != record.values {
                    findings.append("record \(record.ref) holds \(record.values), the journal makes \(state[record.ref].map { "\($0)" } ?? "nothing")")
                }
                return findings.count < 20
            }
            if stored != state.count { findings.append("\(stored) records, the journal makes \(state.count)") }
            return findings
        }
    }

    /// Applies `entry` to `state`. - Returns: what disagrees with the entry's old value, or nil.
    private static func apply(_ entry: JournalEntry, to state: inout [RecordRef: [String: Value]]) -> String? {
        let current = state[entry.ref]
        switch entry.change {
        case .recordInserted:
            guard current == nil else { return "the record exists already" }
            guard case .dictionary(let values)? = entry.newValue else { return "no dictionary inserted" }
            state[entry.ref] = values
        case .recordDeleted:
            guard let current else { return "no such record to delete" }
            guard entry.oldValue == .dictionary(current) else { return "the old value is not the record" }
            state[entry.ref] = nil
        case .setting:
            guard var values = current else { return "no such record to set" }
            guard let key = entry.keyPath, !key.contains(".") else { return "the audit covers top-level keys only" }
            let old = entry.oldValue?.isNull == false ? entry.oldValue : nil
            guard values[key] == old else { return "old value \(old.map { "\($0)" } ?? "nothing"), but the journal before it leaves \(values[key].map { "\($0)" } ?? "nothing")" }
            values[key] = entry.newValue?.isNull == false ? entry.newValue : nil
            state[entry.ref] = values
        case .insertion, .removal, .replacement:
            return "the audit does not cover index-level changes"
        case .kindDeclared:
            return nil  // changes no record
        }
        return nil
    }
}
