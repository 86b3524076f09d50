import Foundation
import Testing
@_spi(Sync) @testable import KVStore

extension TemporaryStore {
    /// A store that syncs `kinds` (nil: every kind).
    static func syncing(_ kinds: Set<String>? = ["note"], declaring declared: [Kind] = [], options: Store.Options = .testing) throws -> TemporaryStore {
        let t = try TemporaryStore(options: options, kinds: declared)
        try t.store.write { try $0.setSyncConfiguration(SyncConfiguration(kinds: kinds)) }
        return t
    }
}

extension Store {
    /// Applies `changes` in one write.
    @discardableResult
    func applyRemote(_ changes: [RemoteChange], hubNow: Date? = nil) throws -> RemoteApplyReport {
        try write { try $0.applyRemote(changes, hubNow: hubNow) }
    }

    /// Every record, by reference.
    func allRecords() throws -> [RecordRef: [String: Value]] {
        try read { txn in
            var records: [RecordRef: [String: Value]] = [:]
            for (kind, _) in try txn.kinds() {
                for ref in try txn.refs(ofKind: kind) { records[ref] = try txn.record(ref) }
            }
            return records
        }
    }

    /// Every entry of the `sync` database, key and value bytes.
    func syncDatabase() throws -> [[UInt8]: [UInt8]] {
        try read { txn in
            var entries: [[UInt8]: [UInt8]] = [:]
            try txn.transaction.scan(try #require(txn.databases.sync)) { key, value in entries[Array(key)] = Array(value); return true }
            return entries
        }
    }

    var lastSequence: UInt64 {
        get throws { try read { try $0.lastSequence() } }
    }

    /// The stamp of the journal's last entry.
    func lastStamp() throws -> SyncStamp {
        try #require(try journalEntries().last).syncStamp(localStore: id)
    }
}

/// Milliseconds since 1970, now.
func nowMilliseconds() -> UInt64 { HybridTime.milliseconds(Date()) }

/// A remote change from store `store` at `wall` ms (sequence: `wall`, unless given).
func remote(
    _ change: RemoteChange.Change, _ ref: RecordRef, _ key: String? = nil, _ value: Value? = nil,
    at wall: UInt64, counter: UInt16 = 0, from store: UUID, sequence: UInt64? = nil
) -> RemoteChange {
    RemoteChange(
        origin: JournalOrigin(storeID: store, sequence: sequence ?? wall), stamp: HybridTime(wall: wall, counter: counter),
        ref: ref, key: key, change: change, value: value)
}
