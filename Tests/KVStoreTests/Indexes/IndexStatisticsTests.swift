import Foundation
import LMDB
import Testing
import TestSupport
@testable import KVStore

/// Each index keeps the counts of its irregular entries (``IndexStatistics``), in the write that
/// adds or removes them, so that a planner learns from them — not from reading the range — whether
/// its candidates are exact and ordered.
@Suite struct IndexStatisticsTests {
    static let index = indexOn("feed", "published")

    /// A feed's items with regular values, in an indexed kind.
    static func feedStore() throws -> TemporaryStore {
        let t = try indexedStore([index])
        try t.store.write { txn in
            for n in 0 ..< 12 {
                try txn.insert(["feed": .reference(ref("feed/\(n % 2)")), "published": .int(Int64(n))], as: ref("item/\(n)"))
            }
        }
        return t
    }

    static func statistics(_ store: Store, _ index: KindIndex = index) throws -> IndexStatistics? {
        try store.read { txn in try txn.builtIndex(index, ofKind: "item").flatMap { try txn.indexStatistics(of: $0) } }
    }

    /// Feed 0's items after 3, newest first: the plan's (exact, ordered), and that its ids are the scan's.
    static func feedPage(
        _ store: Store, ids: [String] = ["10", "8", "6"], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (exact: Bool, ordered: Bool) {
        let query = RecordQuery(kind: "item", where: try KeyPathPredicate("feed == $feed AND published > 3"),
                                variables: ["feed": .reference(ref("feed/0"))], sortedBy: [try KeyPathSort(parsing: "published:desc")], limit: 3)
        return try store.read { txn in
            let plan = try QueryPlanner.plan(for: query, in: txn)
            #expect(plan.description == "index item.feed,published", sourceLocation: sourceLocation)
            #expect(try txn.fetch(query).map(\.ref.id) == ids, sourceLocation: sourceLocation)
            return (plan.residual == nil, plan.order != .unordered)
        }
    }

    @Test("an irregular entry added turns exact or ordered off; removed, turns it back on", arguments: [
        ("NaN", Value.double(.nan), true, false),
        ("element", Value.array([1, 2]), true, false),
        ("a NaN date", Value.date(Date(timeIntervalSinceReferenceDate: .nan)), true, false),
        ("a dictionary", Value.dictionary(["x": 1]), true, false),
        ("inexact", Value.string(String(repeating: "long ", count: 60)), false, false),
        ("a string not in NFC", Value.string("e\u{301}"), true, false),
        ("a string in NFC", Value.string("é"), true, true),
        ("a reference", Value.reference(ref("feed/x")), true, true),
        ("a reference of a kind with a dash", Value.reference(ref("feed-old/x")), true, false),
    ])
    func irregularEntryComesAndGoes(name: String, published: Value, exact: Bool, ordered: Bool) throws {
        let t = try Self.feedStore()
        #expect(try Self.feedPage(t.store) == (true, true))
        #expect(try Self.statistics(t.store)?.isZero == true)
        // In another feed: the counts are the index's, not the range's.
        try t.store.insert(["feed": .reference(ref("feed/9")), "published": published], as: ref("item/odd"))
        #expect(try Self.feedPage(t.store) == (exact, ordered), "\(name)")
        #expect(try Self.statistics(t.store)?.isZero == (exact && ordered), "\(name)")
        #expect(try t.store.findings() == [])
        try t.store.setValue(5, forKey: "published", of: ref("item/odd"))
        #expect(try Self.feedPage(t.store) == (true, true), "\(name)")
        #expect(try Self.statistics(t.store)?.isZero == true)
        try t.store.setValue(published, forKey: "published", of: ref("item/odd"))
        try t.store.delete(ref("item/odd"))
        #expect(try Self.feedPage(t.store) == (true, true), "\(name)")
        #expect(try t.store.read { txn in try txn.transaction.withValue(forKey: Self.statisticsKey(txn), in: #require(txn.databases.indexes)) { $0 == nil } })
    }

    static func statisticsKey(_ txn: ReadTransaction) throws -> [UInt8] {
        IndexStatistics.key(try #require(try txn.builtIndex(index, ofKind: "item")).prefix)
    }

    @Test func aStringTurnedToTheFormAFoldedIndexKeepsIsNoLongerCounted() throws {
        let folded = indexOn("title", folded: true)
        let t = try indexedStore([folded])
        try t.store.insert(["title": "Café"], as: ref("item/1"))
        #expect(try Self.statistics(t.store, folded)?.reformed == [1])
        try t.store.setValue("cafe", forKey: "title", of: ref("item/1"))  // the same entry
        #expect(try Self.statistics(t.store, folded)?.isZero == true)
        #expect(try t.store.findings() == [])
    }

    /// An insert puts a one-key index's entry straight from the value: an irregular one is still counted.
    @Test("an insert into an index on one key counts an irregular value", arguments: [
        Value.double(.nan), .date(Date(timeIntervalSinceReferenceDate: .nan)), .dictionary(["x": 1]), .string("e\u{301}"),
    ])
    func anInsertIntoAOneKeyIndexCountsAnIrregularValue(published: Value) throws {
        let single = indexOn("published")
        let t = try indexedStore([single]), plain = try TemporaryStore()
        for store in [t.store, plain.store] {
            try store.write { txn in
                for n in 0 ..< 3 { try txn.insert(["published": .int(Int64(n))], as: ref("item/\(n)")) }
                try txn.insert(["published": published], as: ref("item/odd"))
            }
        }
        #expect(try Self.statistics(t.store, single)?.isZero == false)
        let query = RecordQuery(kind: "item", sortedBy: [try KeyPathSort(parsing: "published")], limit: 4)
        #expect(try t.store.fetch(query).map(\.ref.id) == plain.store.fetch(query).map(\.ref.id))
        #expect(try t.store.findings() == [])
    }

    @Test func aWriteTransactionPlansWithItsOwnChanges() throws {
        let t = try Self.feedStore()
        try t.store.write { txn in
            try txn.insert(["feed": .reference(ref("feed/0")), "published": .double(.nan)], as: ref("item/nan"))
            let query = RecordQuery(kind: "item", where: try KeyPathPredicate("feed == $feed"), variables: ["feed": .reference(ref("feed/0"))],
                                    sortedBy: [try KeyPathSort(parsing: "published")], limit: 2)
            #expect(try QueryPlanner.plan(for: query, in: txn).order == .unordered)
            #expect(try txn.fetch(query).map(\.ref.id) == ["nan", "0"])  // NaN sorts first
        }
        #expect(try Self.statistics(t.store)?.unordered == [0, 1])
    }

    @Test func buildingOnExistingRecordsCountsTheirIrregularEntries() throws {
        let t = try TemporaryStore()
        let long = String(repeating: "x", count: 300)
        try t.store.write { txn in
            try txn.insert(["feed": "a", "published": .double(.nan)], as: ref("item/1"))
            try txn.insert(["feed": "a\u{30A}", "published": [1, 2, 2]], as: ref("item/2"))  // not NFC; two elements
            try txn.insert(["feed": .string(long), "published": 3], as: ref("item/3"))  // cut
            try txn.insert(["feed": ["k": 1], "published": "Ångström"], as: ref("item/4"))
            try txn.insert(["feed": "b", "published": 4], as: ref("item/5"))
        }
        var kind = try Kind("item")
        kind.indexes = [Self.index, indexOn("published", folded: true)]
        try t.store.register(kind)
        var expected = IndexStatistics(keyPaths: 2)
        (expected.inexact, expected.element, expected.unordered, expected.reformed) = (1, 2, [1, 1], [2, 0])
        #expect(try Self.statistics(t.store) == expected)
        var folded = IndexStatistics(keyPaths: 1)
        (folded.element, folded.unordered, folded.reformed) = (2, [1], [1])
        #expect(try Self.statistics(t.store, indexOn("published", folded: true)) == folded)
        #expect(try t.store.findings() == [])
        #expect(try t.store.statistics().formatVersion == StoreLayout.indexPrefixCountsFormatVersion)
    }

    @Test func droppingAnIndexRemovesItsCounts() throws {
        let t = try Self.feedStore()
        try t.store.insert(["feed": .reference(ref("feed/0")), "published": .double(.nan)], as: ref("item/nan"))
        let key = try t.store.read(Self.statisticsKey)
        try t.store.dropIndex(on: ["feed", "published"], folded: false, ofKind: "item")
        #expect(try t.store.read { txn in try txn.transaction.withValue(forKey: key, in: #require(txn.databases.indexes)) { $0 == nil } })
        try t.store.declareIndex(Self.index, ofKind: "item")
        #expect(try Self.statistics(t.store)?.unordered == [0, 1])
        #expect(try t.store.findings() == [])
    }

    /// Writes `value` as the index's statistics, under the store.
    func damage(_ t: TemporaryStore, _ value: [UInt8]?) throws {
        let key = try t.store.read(Self.statisticsKey)
        try t.store.environment.write { txn in
            let db = try #require(t.store.databases.indexes)
            if let value { try txn.put(key, value, in: db) } else { try txn.delete(key, in: db) }
        }
    }

    @Test func verifyFindsDamagedCounts() throws {
        let t = try Self.feedStore()
        try t.store.insert(["feed": .reference(ref("feed/0")), "published": [1, 2]], as: ref("item/tags"))
        var wrong = try #require(try Self.statistics(t.store))
        #expect(wrong.element == 2)
        wrong.element = 1
        try damage(t, wrong.encoded)
        #expect(try t.store.findings() == [
            "index item.feed,published has damaged statistics: they count inexact 0, element 1, unordered [0, 0], reformed [0, 0]; its records give inexact 0, element 2, unordered [0, 0], reformed [0, 0]",
        ])
        try damage(t, nil)
        #expect(try t.store.findings().count == 1)
        try damage(t, [1, 2, 3])
        #expect(try t.store.findings() == ["index item.feed,published has statistics that do not decode"])
    }

    @Test func countsOfAnIndexWithoutIrregularEntriesAreNotStored() throws {
        let t = try Self.feedStore()
        func storedCounts() throws -> Int {
            try t.store.read { txn in
                var keys = 0
                try txn.transaction.scan(#require(txn.databases.indexes)) { key, _ in
                    keys += key.count == 4 && !key.elementsEqual(IndexDirectory.counterKey) ? 1 : 0
                    return true
                }
                return keys
            }
        }
        #expect(try storedCounts() == 0)
        try damage(t, IndexStatistics(keyPaths: 2).encoded)
        #expect(try storedCounts() == 1)
        #expect(try t.store.findings() == [])  // zero counts, stored or not, are the same counts
    }

    @Test func anIndexBuiltBeforeCountsIsSurveyedByReadingItsRange() throws {
        let t = try Self.feedStore()
        // As the previous format left it: no `counted` flag in the directory, no statistics.
        try t.store.environment.write { txn in
            let db = try #require(t.store.databases.indexes)
            let key = IndexDirectory.key(kind: "item", index: Self.index)
            var value = try #require(try txn.withValue(forKey: key, in: db) { $0.map(Array.init) })
            value[4] &= ~IndexDirectory.countedFlag
            try txn.put(key, value, in: db)
        }
        let built = try #require(try t.store.read { try $0.builtIndex(Self.index, ofKind: "item") })
        #expect(!built.countsIrregularEntries)
        #expect(try Self.feedPage(t.store) == (true, true))
        // A NaN in another feed leaves feed 0's range ordered; in feed 0, it does not.
        try t.store.insert(["feed": .reference(ref("feed/9")), "published": .double(.nan)], as: ref("item/other"))
        #expect(try Self.feedPage(t.store) == (true, true))
        try t.store.insert(["feed": .reference(ref("feed/0")), "published": [5, 6]], as: ref("item/tags"))
        #expect(try Self.feedPage(t.store, ids: ["tags", "10", "8"]) == (true, false))  // arrays sort after numbers
        #expect(try Self.statistics(t.store) == nil)
        #expect(try t.store.findings() == [])
    }
}
