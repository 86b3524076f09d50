import Foundation
import Testing
import TestSupport
@testable import KVStore

/// Every in-process write path keeps every kind of index: value, unique, compound, multi-entry
/// and folded, and a key path into nested dictionaries and across arrays.
@Suite struct IndexMaintenanceTests {
    static let title = indexOn("title")
    static let guid = indexOn("guid", unique: true)
    static let feedDate = indexOn("feed", "published")
    static let tags = indexOn("tags")
    static let foldedTitle = indexOn("title", folded: true)
    static let author = indexOn("meta.author")
    static let skus = indexOn("lines.sku")
    static let all = [title, guid, feedDate, tags, foldedTitle, author, skus]

    let fixture: TemporaryStore
    var store: Store { fixture.store }
    let item = ref("item/1")

    init() throws {
        fixture = try indexedStore(Self.all)
        try fixture.store.insert([
            "title": "Écoles", "guid": "g1", "feed": "f1", "published": .date(Date(timeIntervalSinceReferenceDate: 100)),
            "tags": ["swift", ["nested"]], "meta": ["author": "ada"], "lines": [["sku": "A"], ["sku": "B"]],
        ], as: item)
    }

    /// The record's ids under each index for one value, and no finding from `verify`.
    func expectIndexed(_ value: Value, in index: KindIndex, _ ids: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try store.ids(index, equal: value) == ids, sourceLocation: sourceLocation)
    }

    func expectHealthy(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try store.findings() == [], sourceLocation: sourceLocation)
    }

    @Test func insertAddsAnEntryToEveryIndex() throws {
        try expectIndexed("Écoles", in: Self.title, ["1"])
        try expectIndexed("ECOLES", in: Self.foldedTitle, ["1"])
        try expectIndexed("ECOLES", in: Self.title, [])
        try expectIndexed("g1", in: Self.guid, ["1"])
        try expectIndexed("swift", in: Self.tags, ["1"])
        try expectIndexed("nested", in: Self.tags, ["1"])  // nested arrays flattened
        try expectIndexed("ada", in: Self.author, ["1"])
        try expectIndexed("B", in: Self.skus, ["1"])
        let range = try #require(IndexKeyRange(equal: ["f1"], then: .greater(.date(Date(timeIntervalSinceReferenceDate: 50))), folded: false))
        #expect(try store.indexedIDs(Self.feedDate, in: range) == ["1"])
        #expect(try store.entries(Self.tags).map(\.flags) == [.element, .element])
        #expect(try store.entries(Self.title).map(\.flags) == [[]])
        try expectHealthy()
    }

    @Test func settingAKeyMovesTheEntry() throws {
        try store.setValue("Rust", forKey: "title", of: item)
        try expectIndexed("Écoles", in: Self.title, [])
        try expectIndexed("Rust", in: Self.title, ["1"])
        try expectIndexed("RUST", in: Self.foldedTitle, ["1"])
        try store.setValue(.date(Date(timeIntervalSinceReferenceDate: 10)), forKey: "published", of: item)
        let range = try #require(IndexKeyRange(equal: ["f1"], then: .less(.date(Date(timeIntervalSinceReferenceDate: 50))), folded: false))
        #expect(try store.indexedIDs(Self.feedDate, in: range) == ["1"])
        try expectHealthy()
    }

    @Test func removingAKeyIndexesTheRecordAsMissing() throws {
        try store.removeValue(forKey: "title", of: item)
        #expect(try store.indexedIDs(Self.title, in: IndexKeyRange(then: .missing, folded: false)!) == ["1"])
        try expectIndexed("Écoles", in: Self.title, [])
        try expectHealthy()
    }

    @Test func settingAKeyPathIntoADictionaryMovesTheEntry() throws {
        try store.setValue("grace", forKeyPath: "meta.author", of: item)
        try expectIndexed("ada", in: Self.author, [])
        try expectIndexed("grace", in: Self.author, ["1"])
        try store.write { txn in try txn.removeValue(forKeyPath: "meta.author", of: item) }
        #expect(try store.indexedIDs(Self.author, in: IndexKeyRange(then: .missing, folded: false)!) == ["1"])
        try expectHealthy()
    }

    @Test func arrayEditsAddAndRemoveElementEntries() throws {
        try store.write { txn in try txn.mutableArray(forKey: "tags", of: item).append("lmdb") }
        try expectIndexed("lmdb", in: Self.tags, ["1"])
        try store.write { txn in try txn.mutableArray(forKey: "tags", of: item).remove(at: 0) }
        try expectIndexed("swift", in: Self.tags, [])
        try store.write { txn in try txn.mutableArray(forKey: "tags", of: item).replace(at: 0, with: "kv") }
        try expectIndexed("nested", in: Self.tags, [])
        try expectIndexed("kv", in: Self.tags, ["1"])
        try store.write { txn in try txn.mutableArray(forKey: "lines", of: item).insert(["sku": "C"], at: 0) }
        try expectIndexed("C", in: Self.skus, ["1"])
        try store.write { txn in try txn.mutableArray(forKey: "tags", of: item).remove(at: [0, 1]) }
        #expect(try store.indexedIDs(Self.tags, in: .all) == ["1"])  // the empty array's one entry
        try expectIndexed("kv", in: Self.tags, [])
        try expectHealthy()
    }

    @Test func aDuplicateElementIsOneEntry() throws {
        try store.setValue(["a", "a", ["a"]], forKey: "tags", of: item)
        #expect(try store.entries(Self.tags).count == 1)
        try expectHealthy()
    }

    @Test func deleteRemovesEveryEntry() throws {
        try store.insert(["title": "Other"], as: ref("item/2"))
        try store.delete(item)
        for index in Self.all {
            #expect(try store.entries(index).allSatisfy { $0.items.map(\.id) == ["2"] }, "\(index)")
        }
        try expectHealthy()
    }

    @Test func aKindWithoutIndexesWritesNoEntry() throws {
        try store.insert(["title": "Écoles"], as: ref("other/1"))
        try store.setValue("x", forKey: "title", of: ref("other/1"))
        #expect(try store.ids(Self.title, equal: "Écoles") == ["1"])
        #expect(try store.read { try $0.builtIndexes(ofKind: "other") } == [])
    }

    @Test func aWriteThatThrowsLeavesTheIndexesAsTheyWere() throws {
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.write { txn in
                try txn.setValue("Changed", forKey: "title", of: item)
                throw Stop()
            }
        }
        try expectIndexed("Écoles", in: Self.title, ["1"])
        try expectHealthy()
    }
}
