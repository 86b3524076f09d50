import Foundation
@testable import KVStore

/// What callbacks received, from any thread, in order.
final class Received<Item: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Item] = []

    func add(_ item: Item) { lock.withLock { items.append(item) } }
    var all: [Item] { lock.withLock { items } }
    var count: Int { lock.withLock { items.count } }
}

extension TemporaryStore {
    /// A fresh store holding one record, and the record's reference.
    static func holding(_ values: [String: Value], as text: String, kinds: [Kind] = []) throws -> (TemporaryStore, RecordRef) {
        let store = try TemporaryStore(kinds: kinds)
        let record = ref(text)
        try store.store.insert(values, as: record)
        return (store, record)
    }
}
