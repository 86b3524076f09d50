import Foundation
@_spi(Sync) import KVStore
import KVStoreSync
import TestSupport

/// Stores of a test's own, each in its own directory, for syncing through a test hub.
final class SyncedStores: Sendable {
    let directory: TemporaryDirectory
    let stores: [Store]

    init(_ count: Int) throws {
        let directory = try TemporaryDirectory()
        self.directory = directory
        var options = Store.Options()
        options.durability = .noSync
        stores = try (0..<count).map { try Store(path: directory.path("store-\($0)"), options: options) }
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
