import Foundation
import Testing
import TestSupport
@testable import KVStore

/// Declaring an index builds it over the kind's records; dropping it removes every entry; the
/// directory keeps each built index under a number of its own.
@Suite struct IndexBuildTests {
    let fixture: TemporaryStore
    var store: Store { fixture.store }

    init() throws {
        fixture = try TemporaryStore()
        try fixture.store.write { txn in
            for n in 0 ..< 50 {
                try txn.insert(["n": .int(Int64(n % 10)), "tags": [.string("t\(n % 3)"), "all"]], as: RecordRef(kind: "item", id: "i\(n)"))
            }
            try txn.insert(["n": 3], as: ref("other/1"))
        }
    }

    func register(_ indexes: [KindIndex]) throws {
        var kind = try Kind("item")
        kind.indexes = indexes
        try store.register(kind)
    }

    @Test func declaringAnIndexBuildsItOverExistingRecords() throws {
        try register([indexOn("n"), indexOn("tags")])
        #expect(try store.ids(indexOn("n"), equal: 3) == ["i13", "i23", "i3", "i33", "i43"])
        #expect(try store.ids(indexOn("tags"), equal: "all")?.count == 50)
        #expect(try store.ids(indexOn("tags"), equal: "t1")?.count == 17)
        #expect(try store.findings() == [])
    }

    @Test func theBuildReportsItsProgress() throws {
        var kind = try Kind("item")
        kind.indexes = [indexOn("n")]
        var seen = 0
        try store.register(kind, indexBuildProgress: { seen += $0 })
        #expect(seen == 50)
    }

    @Test func droppingAnIndexRemovesEveryEntryAndItsName() throws {
        try register([indexOn("n"), indexOn("tags")])
        let numbers = try store.read { try $0.builtIndexes().map(\.number) }
        try register([indexOn("tags")])
        #expect(try store.read { try $0.builtIndexes().map(\.index) } == [indexOn("tags")])
        try store.read { txn in
            try txn.transaction.scan(#require(txn.databases.indexes), prefix: IndexDirectory.prefix(numbers[0])) { _, _ in
                Issue.record("an entry of the dropped index is left")
                return false
            }
        }
        #expect(try store.findings() == [])
    }

    @Test func aRebuiltIndexTakesANewNumber() throws {
        try register([indexOn("n")])
        let first = try store.read { try $0.builtIndexes()[0].number }
        try register([])
        try register([indexOn("n")])
        #expect(try store.read { try $0.builtIndexes()[0].number } == first + 1)
        #expect(try store.findings() == [])
    }

    @Test func makingAnIndexUniqueChecksTheRecords() throws {
        try register([indexOn("n")])
        #expect(throws: KeyValueCodingError.self) { try register([indexOn("n", unique: true)]) }
        #expect(store.kind(named: "item")?.indexes == [indexOn("n")])
        #expect(try store.read { try $0.builtIndexes().map(\.index) } == [indexOn("n")])
        #expect(try store.findings() == [])
    }

    @Test func aPlainAndAFoldedIndexOnOneKeyPathAreTwoIndexes() throws {
        try register([indexOn("tags"), indexOn("tags", folded: true)])
        #expect(try store.read { try $0.builtIndexes().count } == 2)
        #expect(try store.ids(indexOn("tags", folded: true), equal: "ALL")?.count == 50)
    }

    @Test func anIndexDeclaredTwiceIsRefused() throws {
        #expect(throws: KeyValueCodingError.self) { try register([indexOn("n"), indexOn("n", unique: true)]) }
        #expect(store.kind(named: "item") == nil)
    }

    @Test func declareAndDropByName() throws {
        try store.declareIndex(indexOn("n"), ofKind: "item")
        #expect(throws: KeyValueCodingError.self) { try store.declareIndex(indexOn("n"), ofKind: "item") }
        #expect(try store.indexStatuses().map { [$0.kind, $0.index.name, "\($0.records)", "\($0.entries)"] } == [["item", "n", "50", "50"]])
        #expect(try store.dropIndex(on: ["n"], folded: nil, ofKind: "item") == indexOn("n"))
        #expect(try store.indexStatuses().isEmpty)
        #expect(throws: KeyValueCodingError.self) { try store.dropIndex(on: ["n"], folded: nil, ofKind: "item") }
    }

    @Test func anIndexBuiltButNotRegisteredHereIsDroppedFromTheDirectory() throws {
        try store.declareIndex(indexOn("n"), ofKind: "item")
        var options = Store.Options.testing
        options.createIfMissing = false
        let other = try Store(path: fixture.path, options: options)
        #expect(other.kind(named: "item") == nil)
        try other.dropIndex(on: ["n"], folded: nil, ofKind: "item")
        #expect(try store.read { try $0.builtIndexes() } == [])
    }

    @Test func registeringAnIndexedKindInAReadOnlyStoreIsRefusedAndWritesNothing() throws {
        try register([indexOn("n")])
        var options = Store.Options.testing
        options.readOnly = true
        options.createIfMissing = false
        let reader = try Store(path: fixture.path, options: options)
        var kind = try Kind("item")
        kind.indexes = [indexOn("n"), indexOn("tags")]
        let error = try #require(throws: StoreError.self) { try reader.register(kind) }
        #expect(error.code == .readOnly)
        #expect(try reader.read { try $0.builtIndexes().map(\.index) } == [indexOn("n")])
    }
}
