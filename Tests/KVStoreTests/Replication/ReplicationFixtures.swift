import Foundation
@testable import KVStore

/// A source store whose journal holds every value type and every change kind: record inserts and
/// deletes, settings of single keys and nested key paths, removals, and array insertions,
/// removals and replacements through `mutableArray`, some commits holding several entries.
func fillWithEveryChange(_ store: Store) throws {
    let ada = ref("person/ada"), bob = ref("person/bob")
    let date = Date(timeIntervalSince1970: 1_468_540_800.25)
    try store.insert([
        "name": "Ada", "born": 1815, "height": 1.65, "alive": false, "photo": .bytes(Data([0, 1, 255])),
        "seen": .date(date), "friend": .reference(bob), "tags": ["poet"], "nothing": [:],
        "address": ["city": "London", "geo": ["lat": 51.5]],
    ], as: ada)
    try store.insert(["name": "Bob"], as: bob)
    try store.write { txn in
        try txn.setValue("Ada Lovelace", forKey: "name", of: ada)
        try txn.setValue("Paris", forKeyPath: "address.city", of: ada)
        try txn.setValue(48.8, forKeyPath: "address.geo.lat", of: ada)
        try txn.removeValue(forKey: "alive", of: ada)
    }
    try store.write { txn in
        let tags = txn.mutableArray(forKey: "tags", of: ada)
        try tags.append("mathematician")
        try tags.insert(["a", "b"], at: [0, 2])
        try tags.remove(at: [1])
        try tags.replace(at: [0], with: ["A"])
    }
    try store.insert(["temp": true], as: ref("note/1"))
    try store.delete(ref("note/1"))
    try store.setValue(["$weird": 1], forKey: "meta", of: bob)
}

/// The store's records, as a comparable list.
func allRecords(_ store: Store) throws -> [Record] {
    try store.read { txn in
        var records: [Record] = []
        try txn.forEachRecord { records.append($0); return true }
        return records
    }
}

/// The store's journal exported as a stream in memory.
func exported(_ store: Store, since: UInt64 = 1) throws -> [UInt8] {
    var bytes: [UInt8] = []
    try store.exportJournal(since: since) { bytes += $0 }
    return bytes
}

/// The stream of `store`'s journal entries 1…`last` (a commit boundary).
func exported(_ store: Store, through last: UInt64) throws -> [UInt8] {
    var bytes: [UInt8] = []
    let writer = try JournalStreamWriter(header: JournalStreamHeader(storeID: store.id, firstSequence: 1, lastSequence: last)) { bytes += $0 }
    try store.appendJournal(from: 1, through: last, to: writer)
    try writer.finish()
    return bytes
}

/// Applies a stream held in memory.
@discardableResult
func apply(_ bytes: [UInt8], to store: Store) throws -> Store.JournalApplySummary {
    try store.applyJournal(JournalStreamReader(bytes: bytes))
}

/// Matches a ``JournalStreamError`` with the given code and a message containing `text`.
func streamError(_ expected: JournalStreamError.Code, _ text: String = "") -> @Sendable (any Error) -> Bool {
    { error in
        guard let error = error as? JournalStreamError else { return false }
        return error.code == expected && (text.isEmpty || error.message.contains(text))
    }
}

/// Matches a ``JournalApplyError`` with the given code and a message containing `text`.
func applyError(_ expected: JournalApplyError.Code, _ text: String = "") -> @Sendable (any Error) -> Bool {
    { error in
        guard let error = error as? JournalApplyError else { return false }
        return error.code == expected && (text.isEmpty || error.message.contains(text))
    }
}

extension Replicator.Options {
    /// Replicas opened as the tests' stores are (``Store/Options/testing``): one store's openings
    /// in a process must agree on durability.
    static var testing: Replicator.Options {
        var options = Replicator.Options()
        options.replicaOptions = .testing
        return options
    }
}
