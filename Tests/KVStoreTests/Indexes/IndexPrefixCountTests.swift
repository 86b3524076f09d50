import Foundation
import PropertyBased
import Testing
import TestSupport
@testable import KVStore

/// Each compound index counts the records under each value of its leading prefixes
/// (``IndexPrefixCounts``) in every write, so that `count` of an equality on such a prefix reads
/// one row: after every kind of write, the count through the counts is the count of a scan, and
/// `verify` finds the counts sound.
@Suite struct IndexPrefixCountTests {
    static let feedIndex = indexOn("feed", "read", "published")
    /// Multi-entry on its leading key path.
    static let tagIndex = indexOn("tags", "n")
    static let indexes = [feedIndex, tagIndex]
    static let feeds: [Value] = [.reference(ref("feed/f0")), .reference(ref("feed/f1")), .reference(ref("feed/f2")), 7]

    static func randomItem(_ g: inout IndexValueGenerator) -> [String: Value] {
        var item: [String: Value] = [:]
        switch g.int(8) {
        case 0: break
        case 1: item["feed"] = g.scalar()
        default: item["feed"] = feeds[g.int(feeds.count)]
        }
        switch g.int(6) {
        case 0: break
        case 1: item["read"] = .array((0 ..< g.int(3)).map { _ in .bool(g.int(2) == 0) })
        default: item["read"] = .bool(g.int(3) == 0)
        }
        item["published"] = g.int(4) == 0 ? g.number() : .int(Int64(g.int(1000)))
        switch g.int(4) {
        case 0: break
        case 1: item["tags"] = .int(Int64(g.int(5)))
        default: item["tags"] = .array((0 ..< g.int(4)).map { _ in .int(Int64(g.int(5))) })
        }
        item["n"] = .int(Int64(g.int(3)))
        return item.filter { !$0.value.isNull }
    }

    /// The count queries the counts answer: each feed, each feed and read state (in either
    /// order), each tag.
    static let queries: [RecordQuery] = {
        var queries: [RecordQuery] = []
        for feed in feeds {
            queries.append(RecordQuery(kind: "item", where: try! KeyPathPredicate("feed == $f"), variables: ["f": feed]))
            for read in [true, false] {
                queries.append(RecordQuery(kind: "item", where: try! KeyPathPredicate("feed == $f AND read == $r"), variables: ["f": feed, "r": .bool(read)]))
                queries.append(RecordQuery(kind: "item", where: try! KeyPathPredicate("read == $r AND feed == $f"), variables: ["f": feed, "r": .bool(read)]))
            }
        }
        for tag in 0 ..< 6 {
            queries.append(RecordQuery(kind: "item", where: try! KeyPathPredicate("tags == \(tag)")))
        }
        return queries
    }()

    /// Each query's count, through the counts when `counted`, is the count of a scan.
    static func expectCounts(_ txn: ReadTransaction, counted: Bool = true, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let all = try txn.refs(ofKind: "item")
        for query in queries {
            let plan = try QueryPlanner.plan(for: query, in: txn)
            let known = try plan.knownCount(in: txn)
            #expect((plan.countedPrefix != nil && known != nil) == counted, "\(context): \(query.predicate)", sourceLocation: sourceLocation)
            let scanned = try all.filter { try txn.evaluate(query.predicate, on: $0, variables: query.variables) }.count
            #expect(try txn.count(matching: query) == scanned, "\(context): \(query.predicate) \(query.variables)", sourceLocation: sourceLocation)
        }
    }

    static func expectCounts(_ store: Store, counted: Bool = true, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try store.read { try expectCounts($0, counted: counted, context, sourceLocation: sourceLocation) }
        #expect(try store.findings() == [], "\(context)", sourceLocation: sourceLocation)
    }

    /// Random changes through every write path of a transaction.
    static func change(_ txn: WriteTransaction, _ g: inout IndexValueGenerator, items: Int) throws {
        for _ in 0 ..< 25 {
            let target = ref("item/r\(g.int(items))")
            guard try txn.contains(target) else {
                try txn.insert(randomItem(&g), as: target)
                continue
            }
            let other = randomItem(&g)
            switch g.int(8) {
            case 0: try txn.setValue(other["feed"] ?? 7, forKey: "feed", of: target)
            case 1: try txn.setValue(other["read"] ?? true, forKey: "read", of: target)
            case 2: try txn.setValue(other["published"] ?? 1, forKey: "published", of: target)
            case 3: try txn.delete(target)
            case 4: try txn.removeValue(forKey: ["feed", "read", "tags"][g.int(3)], of: target)
            case 5 where (try txn.value(forKey: "tags", of: target))?.arrayValue?.isEmpty == false:
                try txn.mutableArray(forKey: "tags", of: target).remove(at: 0)
            case 6 where (try txn.value(forKey: "tags", of: target))?.arrayValue != nil:
                try txn.mutableArray(forKey: "tags", of: target).append(.int(Int64(g.int(5))))
            default: try txn.setValue(other["tags"] ?? 3, forKey: "tags", of: target)
            }
        }
    }

    @Test func countsFollowEveryWrite() async throws {
        await propertyCheck(count: 12, input: Gen.uint64()) { seed in
            do { try Self.check(seed) } catch { Issue.record("seed \(seed): \(error)") }
        }
    }

    static func check(_ seed: UInt64) throws {
        var g = IndexValueGenerator(seed)
        let t = try indexedStore(indexes)
        try t.store.write { txn in
            for n in 0 ..< 40 { try txn.insert(randomItem(&g), as: ref("item/r\(n)")) }
        }
        try expectCounts(t.store, "seed \(seed), inserts")
        try t.store.write { txn in
            try change(txn, &g, items: 50)
            try expectCounts(txn, "seed \(seed), in the changing write")
        }
        try expectCounts(t.store, "seed \(seed), changes")
        // Dropped and built again on the records there are.
        _ = try t.store.dropIndex(on: ["feed", "read", "published"], folded: false, ofKind: "item")
        #expect(try Self.areaRows(t.store) > 0)  // the tag index's
        try t.store.declareIndex(feedIndex, ofKind: "item")
        try expectCounts(t.store, "seed \(seed), rebuilt")
        // What the journal carries to another store.
        let directory = try TemporaryDirectory()
        let applied = try Store(path: directory.path("applied"), options: .testing)
        _ = try apply(exported(t.store), to: applied)
        try expectCounts(applied, "seed \(seed), journal apply")
        let replayed = try Store(path: directory.path("replayed"), options: .testing)
        try t.store.replayJournal(into: replayed)
        try expectCounts(replayed, "seed \(seed), replay")
        #expect(try Self.area(applied) == Self.area(t.store))
    }

    /// The rows of the counts area: each index's, by description.
    static func area(_ store: Store) throws -> [String: [[UInt8]]] {
        try store.read { txn in
            var rows: [String: [[UInt8]]] = [:]
            for built in try txn.builtIndexes() {
                try txn.transaction.scan(#require(txn.databases.indexes), prefix: IndexPrefixCounts.prefix(of: built.number)) { key, value in
                    rows[built.index.description, default: []].append(Array(key.dropFirst(8)) + [0xFF] + Array(value))
                    return true
                }
            }
            return rows
        }
    }

    static func areaRows(_ store: Store) throws -> Int {
        try store.read { txn in
            var rows = 0
            try txn.transaction.scan(#require(txn.databases.indexes), prefix: IndexPrefixCounts.areaPrefix) { _, _ in
                rows += 1
                return true
            }
            return rows
        }
    }

    @Test func anIndexBuiltOnExistingRecordsCountsThem() throws {
        var g = IndexValueGenerator(7)
        let t = try TemporaryStore()
        try t.store.write { txn in
            for n in 0 ..< 40 { try txn.insert(Self.randomItem(&g), as: ref("item/r\(n)")) }
        }
        var kind = try Kind("item")
        kind.indexes = Self.indexes
        try t.store.register(kind)
        try Self.expectCounts(t.store, "built")
        #expect(try t.store.statistics().formatVersion == StoreLayout.indexPrefixCountsFormatVersion)
    }

    @Test func aCountDroppingToZeroRemovesItsRowAndDroppingTheIndexItsCounts() throws {
        let t = try indexedStore([Self.feedIndex])
        try t.store.insert(["feed": .reference(ref("feed/f0")), "read": false, "published": 1], as: ref("item/1"))
        #expect(try Self.areaRows(t.store) == 2)  // feed f0; feed f0, read false
        try t.store.setValue(true, forKey: "read", of: ref("item/1"))
        #expect(try Self.areaRows(t.store) == 2)  // feed f0; feed f0, read true
        try t.store.delete(ref("item/1"))
        #expect(try Self.areaRows(t.store) == 0)
        try t.store.insert(["feed": .reference(ref("feed/f0"))], as: ref("item/2"))
        _ = try t.store.dropIndex(on: ["feed", "read", "published"], folded: false, ofKind: "item")
        #expect(try Self.areaRows(t.store) == 0)
        #expect(try t.store.findings() == [])
    }

    @Test func anIndexBuiltBeforeCountsItsEntries() throws {
        let t = try indexedStore(Self.indexes)
        var g = IndexValueGenerator(3)
        try t.store.write { txn in
            for n in 0 ..< 30 { try txn.insert(Self.randomItem(&g), as: ref("item/r\(n)")) }
        }
        // As format 3 left it: no prefix-count flag in the directory, no counts.
        try t.store.environment.write { txn in
            let db = try #require(t.store.databases.indexes)
            for index in Self.indexes {
                let key = IndexDirectory.key(kind: "item", index: index)
                var value = try #require(try txn.withValue(forKey: key, in: db) { $0.map(Array.init) })
                value[4] &= ~IndexDirectory.prefixesCountedFlag
                try txn.put(key, value, in: db)
            }
            _ = try IndexWriter(transaction: txn, db: db).removeAll(prefix: IndexPrefixCounts.areaPrefix)
        }
        try Self.expectCounts(t.store, counted: false, "format 3")
        try t.store.write { txn in try Self.change(txn, &g, items: 30) }
        try Self.expectCounts(t.store, counted: false, "format 3, changed")
        #expect(try Self.areaRows(t.store) == 0)
    }

    /// Writes `count` (nil: removes the row) as the count of feed f0 in the feed index.
    func damage(_ t: TemporaryStore, _ value: [UInt8]?) throws {
        var prefix: [UInt8] = []
        IndexKeyEncoding.append(.reference(ref("feed/f0")), folded: false, to: &prefix)
        let number = try #require(try t.store.read { try $0.builtIndex(Self.feedIndex, ofKind: "item") }).number
        try t.store.environment.write { txn in
            let db = try #require(t.store.databases.indexes)
            let key = IndexPrefixCounts.key(number: number, prefix: prefix)
            if let value { try txn.put(key, value, in: db) } else { try txn.delete(key, in: db) }
        }
    }

    @Test func verifyFindsADamagedCount() throws {
        let t = try indexedStore([Self.feedIndex])
        try t.store.write { txn in
            for n in 0 ..< 3 { try txn.insert(["feed": .reference(ref("feed/f0")), "read": .bool(n == 0), "published": .int(Int64(n))], as: ref("item/\(n)")) }
        }
        #expect(try t.store.findings() == [])
        let feed0 = "60 66 65 65 64 2f 66 30 00 01"
        try damage(t, IndexPrefixCounts.encoded(4))
        let findings = try t.store.findings()
        #expect(findings == ["index item.feed,read,published has 1 damaged prefix count: the first, of prefix \(feed0), holds 4 records; its records give 3"])
        try damage(t, nil)
        #expect(try t.store.findings() == ["index item.feed,read,published has 1 damaged prefix count: the first, of prefix \(feed0), holds 0 records; its records give 3"])
        try damage(t, [1, 2])
        #expect(try t.store.findings() == ["index item.feed,read,published has 1 damaged prefix count: the first, of prefix \(feed0), holds a value that does not decode; its records give 3"])
        // A count of no index.
        try t.store.environment.write { txn in
            try txn.put(IndexPrefixCounts.key(number: 99, prefix: [1]), IndexPrefixCounts.encoded(1), in: #require(t.store.databases.indexes))
        }
        #expect(try t.store.findings().last == "the indexes database has 1 prefix count of no index that keeps them (number 99)")
    }
}
