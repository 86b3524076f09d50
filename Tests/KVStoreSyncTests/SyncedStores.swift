import Foundation
@_spi(Sync) import KVStore
import KVStoreSync
import TestSupport

/// Stores of a test's own, each in its own directory, for syncing through a test hub.
final class SyncedStores: Sendable {
    let directory: TemporaryDirectory
    let stores: [Store]

    /// `count` stores; store `i`'s clock runs `clockOffsets[i]` seconds ahead of this machine's
    /// (behind when negative; none given: on time).
    init(_ count: Int, clockOffsets: [TimeInterval] = []) throws {
        let directory = try TemporaryDirectory()
        self.directory = directory
        stores = try (0..<count).map { index in
            var options = Store.Options()
            options.durability = .noSync
            let offset = index < clockOffsets.count ? clockOffsets[index] : 0
            if offset != 0 { options.wallClock = { Date().addingTimeInterval(offset) } }
            return try Store(path: directory.path("store-\(index)"), options: options)
        }
    }

    subscript(index: Int) -> Store { stores[index] }

    /// An engine syncing store `index` with the hub of `database`.
    func engine(_ index: Int, _ database: HubDatabase, kinds: Set<String>? = ["note"], batchSize: Int = 1000) throws -> SyncEngine {
        SyncEngine(store: stores[index], hub: try database.configuration(), options: SyncEngine.Options(kinds: kinds, batchSize: batchSize))
    }

    /// Every record of store `index`, by reference.
    func records(_ index: Int) throws -> [RecordRef: [String: Value]] {
        try stores[index].read { txn in
            var records: [RecordRef: [String: Value]] = [:]
            for (kind, _) in try txn.kinds() {
                for ref in try txn.refs(ofKind: kind) { records[ref] = try txn.record(ref) }
            }
            return records
        }
    }
}

extension WriteTransaction {
    /// Sets `key` of `ref`, creating the record when it does not exist.
    func put(_ value: Value, forKey key: String, of ref: RecordRef) throws {
        if try record(ref) != nil {
            try setValue(value, forKey: key, of: ref)
        } else {
            try insert([key: value], as: ref)
        }
    }
}
