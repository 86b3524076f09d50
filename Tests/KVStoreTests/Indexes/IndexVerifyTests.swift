import Foundation
import LMDB
import Testing
import TestSupport
@testable import KVStore

/// `verify` checks every index entry against the records, naming the index and the record.
@Suite struct IndexVerifyTests {
    let fixture: TemporaryStore
    var store: Store { fixture.store }

    init() throws {
        fixture = try indexedStore([indexOn("title"), indexOn("tags")])
        try fixture.store.insert(["title": "a", "tags": ["x", "y"]], as: ref("item/1"))
        try fixture.store.insert(["title": "b", "tags": ["y"]], as: ref("item/2"))
    }

    /// The length of the tuple of a one-letter string.
    static let oneLetter = UInt8(IndexKeyEncoding.component("a", folded: false).count)

    /// Changes the `indexes` database under the store (bypassing its writes).
    func damage(_ body: (LMDB.Transaction, Database, BuiltIndex) throws -> Void) throws {
        let built = try store.read { try $0.builtIndex(indexOn("title"), ofKind: "item") }
        try store.environment.write { txn in try body(txn, #require(store.databases.indexes), #require(built)) }
    }

    func key(_ built: BuiltIndex, _ value: Value, _ id: String) -> [UInt8] {
        IndexEntryLayout.key(prefix: built.prefix, tuple: IndexKeyEncoding.component(value, folded: false), id: id)
    }

    @Test func aMissingEntryIsFound() throws {
        try damage { txn, db, built in try txn.delete(key(built, "a", "1"), in: db) }
        let findings = try store.findings()
        #expect(findings == ["index item.title lacks an entry of record item/1"])
    }

    @Test func aDamagedEntryIsFound() throws {
        try damage { txn, db, built in try txn.put(key(built, "a", "1"), [IndexEntryFlags.element.rawValue, Self.oneLetter], in: db) }
        let findings = try store.findings()
        #expect(findings == ["index item.title has a damaged entry for record item/1"])
    }

    @Test func anExtraEntryIsFound() throws {
        try damage { txn, db, built in try txn.put(key(built, "z", "2"), [0, Self.oneLetter], in: db) }
        let findings = try store.findings()
        #expect(findings == ["index item.title has an entry for record item/2 that its values do not give"])
    }

    @Test func anEntryForARecordThatDoesNotExistIsFound() throws {
        try damage { txn, db, built in try txn.put(key(built, "c", "3"), [0, Self.oneLetter], in: db) }
        let findings = try store.findings()
        #expect(findings == ["index item.title has an entry for record item/3, which does not exist"])
    }

    @Test func missingDamagedAndExtraTogetherAreEachFound() throws {
        try damage { txn, db, built in
            try txn.delete(key(built, "a", "1"), in: db)
            try txn.put(key(built, "b", "2"), [IndexEntryFlags.idList.rawValue, 2, 9], in: db)
            try txn.put(key(built, "q", "1"), [0, Self.oneLetter], in: db)
        }
        let findings = try store.findings()
        #expect(findings == [
            "index item.title lacks an entry of record item/1",
            "index item.title has a damaged entry for record item/2",
            "index item.title has an entry for record item/1 that its values do not give",
        ])
    }

    @Test func anEntryThatDoesNotDecodeAtNoRecordsKeyIsFound() throws {
        try damage { txn, db, built in try txn.put(built.prefix + [7], [0xFF], in: db) }
        let findings = try store.findings()
        #expect(findings == ["index item.title has 1 entry of no record that does not decode"])
    }

    @Test func entriesOfNoBuiltIndexAreFound() throws {
        try damage { txn, db, _ in try txn.put([0, 0, 0, 99, 1, 2], [0, 1], in: db) }
        let findings = try store.findings()
        #expect(findings == ["the indexes database has 1 entry of no built index (number 99)"])
    }

    /// Stores `kind`'s declaration under the store, as damage would (bypassing `declare`, which
    /// builds and drops indexes): nil removes it. A new catalog version makes readers see it.
    func replaceDeclaration(_ kind: Kind?) throws {
        try store.environment.write { txn in
            let meta = store.databases.meta
            if let kind {
                try txn.put(StoreLayout.MetaKey.catalog(kind.name), KindDeclaration(kind).encoded, in: meta)
            } else {
                try txn.delete(StoreLayout.MetaKey.catalog("item"), in: meta)
            }
            try txn.put(StoreLayout.MetaKey.catalogVersion, withUnsafeBytes(of: UUID().uuid, Array.init), in: meta)
        }
    }

    @Test func anIndexBuiltButNotDeclaredIsFound() throws {
        try replaceDeclaration(nil)
        #expect(try store.findings().sorted() == ["index item.tags is built but not declared", "index item.title is built but not declared"])
    }

    @Test func anIndexDeclaredButNotBuiltIsFound() throws {
        var kind = try Kind("item")
        kind.indexes = [indexOn("title"), indexOn("tags"), indexOn("n")]
        try replaceDeclaration(kind)
        #expect(try store.findings() == ["index item.n is declared but not built"])
    }
}
