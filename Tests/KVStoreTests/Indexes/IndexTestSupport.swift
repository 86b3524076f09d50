import Foundation
@testable import KVStore
import TestSupport

/// A store whose kind `item` has `indexes` registered (built over whatever it holds).
func indexedStore(_ indexes: [KindIndex], kind: String = "item", options: Store.Options = .testing) throws -> TemporaryStore {
    let fixture = try TemporaryStore(options: options)
    var declared = try Kind(kind)
    declared.indexes = indexes
    try fixture.store.register(declared)
    return fixture
}

/// `KindIndex(paths, …)`, for tests that know their paths are valid.
func indexOn(_ paths: String..., unique: Bool = false, folded: Bool = false) -> KindIndex {
    try! KindIndex(paths, unique: unique, folded: folded)
}

extension Store {
    /// The ids `index` of `kind` holds in `range` (sorted), or nil when it is not built.
    func indexedIDs(_ index: KindIndex, of kind: String = "item", in range: IndexKeyRange) throws -> [String]? {
        try read { txn in
            try txn.builtIndex(index, ofKind: kind).map { try txn.indexedIDs(of: $0, in: range).ids.sorted() }
        }
    }

    /// The ids whose value at `index`'s (first) key path equals `value`.
    func ids(_ index: KindIndex, equal value: Value, of kind: String = "item") throws -> [String]? {
        try indexedIDs(index, of: kind, in: IndexKeyRange(then: .equal(value), folded: index.isFolded)!)
    }

    /// Every entry of `index`: its tuple's length, flags and records, in key order.
    func entries(_ index: KindIndex, of kind: String = "item") throws -> [IndexEntryLayout.Stored] {
        try read { txn in
            guard let built = try txn.builtIndex(index, ofKind: kind) else { return [] }
            var entries: [IndexEntryLayout.Stored] = []
            try txn.forEachIndexEntry(of: built) { _, stored in
                if let stored { entries.append(stored) }
                return true
            }
            return entries
        }
    }

    /// What `verify` finds.
    func findings() throws -> [String] {
        try verify().findings
    }
}
