import Foundation
import LMDB
import Testing
import TestSupport
@testable import KVStore

/// The `indexes` database: made with new stores, added to older ones when they are opened for
/// writing, absent (no index built) in an older store opened read-only; LMDB's tools read it.
@Suite struct IndexStorageTests {
    /// A store as kvstore made them before indexes: `records`, `journal` and `meta` only.
    static func olderStore(at path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let environment = try Environment.open(path: path, options: .init(durability: .noSync))
        try environment.write { txn in
            _ = try txn.openDatabase(StoreLayout.records, create: true)
            _ = try txn.openDatabase(StoreLayout.journal, create: true)
            let meta = try txn.openDatabase(StoreLayout.meta, create: true)
            try txn.put(StoreLayout.MetaKey.format, withUnsafeBytes(of: StoreLayout.formatVersion.littleEndian, Array.init), in: meta)
            try txn.put(StoreLayout.MetaKey.storeID, withUnsafeBytes(of: UUID().uuid, Array.init), in: meta)
        }
    }

    static func databaseNames(_ store: Store) throws -> [String] {
        try store.read { txn in
            var names: [String] = []
            try txn.transaction.scan(try txn.transaction.mainDatabase()) { key, _ in
                names.append(String(decoding: key, as: UTF8.self))
                return true
            }
            return names
        }
    }

    @Test func aNewStoreHasTheIndexesDatabase() throws {
        let fixture = try TemporaryStore()
        #expect(try Self.databaseNames(fixture.store) == ["indexes", "journal", "meta", "records", "sync"])
    }

    @Test func anOlderStoreOpensReadOnlyWithoutIndexesAndGetsThemWhenOpenedForWriting() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("older")
        try Self.olderStore(at: path)
        var readOnly = Store.Options.testing
        readOnly.readOnly = true
        readOnly.createIfMissing = false
        do {
            let reader = try Store(path: path, options: readOnly)
            #expect(reader.databases.indexes == nil)
            #expect(try reader.read { try $0.builtIndexes() } == [])
            #expect(try reader.indexStatuses().isEmpty)
            #expect(try reader.findings() == [])
        }
        let writer = try Store(path: path, options: .testing)
        #expect(try Self.databaseNames(writer) == ["indexes", "journal", "meta", "records", "sync"])
        try writer.insert(["n": 1], as: ref("item/1"))
        try writer.declareIndex(indexOn("n"), ofKind: "item")
        #expect(try writer.ids(indexOn("n"), equal: 1) == ["1"])
        #expect(try writer.findings() == [])
    }

    @Test func mdbDumpReadsAStoreWithIndexes() throws {
        let fixture = try indexedStore([indexOn("title"), indexOn("tags")])
        try fixture.store.insert(["title": "a\u{0}b", "tags": ["x", "y"]], as: ref("item/1"))
        guard let dump = try runExternalTool("/usr/bin/mdb_dump", ["-a", fixture.path]) else { return }  // lmdb-utils not installed
        #expect(dump.status == 0)
        #expect(dump.output.contains("database=indexes"))
        let stat = try #require(try runExternalTool("/usr/bin/mdb_stat", ["-a", fixture.path]))
        #expect(stat.status == 0 && stat.output.contains("Status of indexes"))
    }
}
