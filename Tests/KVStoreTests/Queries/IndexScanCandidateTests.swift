import Foundation
import Testing
import TestSupport
@testable import KVStore

/// An index scan hands the ids of its entries over as they are stored: each record once, in key
/// order (backward by tuple, ties by id), without remembering them when a record has one entry.
@Suite("index scans: candidates read in place")
struct IndexScanCandidateTests {
    /// The entry decoder before entries were read in place, kept as the reference.
    static func referenceDecode(key: [UInt8], value: [UInt8], prefixLength: Int) -> IndexEntryLayout.Stored? {
        guard value.count >= 2 else { return nil }
        let flags = IndexEntryFlags(rawValue: value[0]), tupleLength = Int(value[1])
        guard flags.isSubset(of: .all), tupleLength <= IndexKeyEncoding.maximumTupleLength, prefixLength + tupleLength <= key.count else { return nil }
        guard flags.contains(.idList) else {
            guard value.count == 2, let id = String(validating: key[(prefixLength + tupleLength)...], as: UTF8.self) else { return nil }
            return IndexEntryLayout.Stored(tupleLength: tupleLength, flags: flags, items: [.init(id: id, isElement: flags.contains(.element))])
        }
        var items: [IndexEntryLayout.Item] = []
        var offset = 2
        while offset < value.count {
            guard offset + 3 <= value.count, value[offset] <= 1 else { return nil }
            let length = Int(value[offset + 1]) | Int(value[offset + 2]) << 8
            guard offset + 3 + length <= value.count, let id = String(validating: value[(offset + 3) ..< (offset + 3 + length)], as: UTF8.self) else { return nil }
            items.append(.init(id: id, isElement: value[offset] == 1))
            offset += 3 + length
        }
        return items.isEmpty ? nil : IndexEntryLayout.Stored(tupleLength: tupleLength, flags: flags, items: items)
    }

    @Test("entries read in place decode as before, malformed ones refused alike", arguments: 1 ... 4)
    func viewsAgreeWithTheDecoder(seed: UInt64) {
        var random = IndexValueGenerator(seed)
        let pieces: [[UInt8]] = [[0x61], [0x62, 0x63], [0xC3, 0xA9], [0xFF], [0xC3], [0], [0xE6, 0x97, 0xA5]]
        func text() -> [UInt8] { (0 ..< random.int(4)).flatMap { _ in pieces[random.int(pieces.count)] } }
        var decoded = 0
        for _ in 0 ..< 3_000 {
            let tuple = (0 ..< random.int(5)).map { _ in UInt8(random.int(256)) }
            let key = [0, 0, 0, 1] + tuple + text()
            var value: [UInt8] = [UInt8(random.int(9)), UInt8(random.int(3) == 0 ? random.int(256) : tuple.count)]
            if random.int(2) == 0 {
                for _ in 0 ..< random.int(4) {
                    let id = text()
                    value += [UInt8(random.int(5) == 0 ? 2 : random.int(2)), UInt8(id.count + (random.int(9) == 0 ? 1 : 0)), 0] + id
                }
            } else if random.int(6) == 0 {
                value.append(UInt8(random.int(256)))
            }
            if random.int(9) == 0 { value = Array(value.prefix(random.int(3))) }
            let want = Self.referenceDecode(key: key, value: value, prefixLength: 4)
            #expect(IndexEntryLayout.decode(key: key, value: value, prefixLength: 4) == want, "\(key) \(value)")
            if want != nil { decoded += 1 }
        }
        #expect(decoded > 100)
    }

    /// Items of kind `item` (indexed) and `plain`, `published` tied in pairs, ids long enough
    /// for some to share a cut key (their ids listed in the entry's value).
    static func tiedStore(_ indexes: [KindIndex]) throws -> TemporaryStore {
        let t = try indexedStore(indexes)
        let long = String(repeating: "x", count: 300)
        try t.store.write { txn in
            for n in 0 ..< 24 {
                let id = n % 3 == 0 ? long + "\(n)" : "\(n)"
                let values: [String: Value] = ["feed": .int(Int64(n % 2)), "published": .int(Int64(n / 4)), "tags": n % 5 == 0 ? ["a", "b"] : "a"]
                try txn.insert(values, as: RecordRef(kind: "item", id: id))
                try txn.insert(values, as: RecordRef(kind: "plain", id: id))
            }
        }
        return t
    }

    static func sameAsScan(_ t: TemporaryStore, _ text: String, sort: String? = nil, limit: Int? = nil, offset: Int = 0,
                           sourceLocation: SourceLocation = #_sourceLocation) throws -> QueryPlan {
        let query = RecordQuery(kind: "item", where: try KeyPathPredicate(text), sortedBy: try sort.map { [try KeyPathSort(parsing: $0)] } ?? [],
                                limit: limit, offset: offset)
        var plain = query
        plain.kind = "plain"
        return try t.store.read { txn in
            #expect(try txn.fetch(query).map(\.ref.id) == txn.fetch(plain).map(\.ref.id), "\(text) \(sort ?? "")", sourceLocation: sourceLocation)
            #expect(try txn.count(matching: query) == txn.count(matching: plain), "\(text)", sourceLocation: sourceLocation)
            return try QueryPlanner.plan(for: query, in: txn)
        }
    }

    @Test("newest first: ties come by id, cut ids and listed ones too, at every page")
    func backwardTies() throws {
        let t = try Self.tiedStore([indexOn("feed", "published")])
        for (limit, offset) in [(nil, 0), (3, 0), (3, 1), (5, 4), (50, 11), (2, 40)] as [(Int?, Int)] {
            let plan = try Self.sameAsScan(t, "feed == 0", sort: "published:desc", limit: limit, offset: offset)
            #expect(plan.order != .unordered && plan.residual == nil)
            guard case .index(let scan) = plan.access else { continue }
            #expect(scan.reverse && scan.recordsHaveOneEntry)
        }
    }

    @Test("a record with several entries in a range, or in two equal ranges, is given once")
    func recordsWithSeveralEntries() throws {
        let t = try Self.tiedStore([indexOn("tags"), indexOn("published")])
        let plan = try Self.sameAsScan(t, "tags BETWEEN {'a', 'b'}")
        guard case .index(let scan) = plan.access else { Issue.record("\(plan)"); return }
        #expect(!scan.recordsHaveOneEntry)
        _ = try Self.sameAsScan(t, "tags IN {'a', 'b'}", limit: 4, offset: 2)
        let twice = try Self.sameAsScan(t, "published IN {1, 1.0, 2}")
        guard case .index(let published) = twice.access else { Issue.record("\(twice)"); return }
        #expect(published.recordsHaveOneEntry && published.ranges.count == 3)
        // The arrays gone, the tags index has one entry per record again.
        try t.store.write { txn in
            for kind in ["item", "plain"] {
                for id in try txn.refs(ofKind: kind) { try txn.setValue("a", forKey: "tags", of: id) }
            }
        }
        let single = try Self.sameAsScan(t, "tags == 'a'", limit: 3, offset: 20)
        guard case .index(let tags) = single.access else { Issue.record("\(single)"); return }
        #expect(tags.recordsHaveOneEntry)
    }

    @Test("every offset, inside a tie or past the end, in both directions, gives the scan's page")
    func everyOffset() throws {
        let t = try Self.tiedStore([indexOn("feed", "published"), indexOn("published")])
        for offset in 0 ... 14 {
            for sort in ["published:desc", "published"] {
                for (text, limit) in [("feed == 0", 3), ("feed == 0", nil), ("published >= 1", 2), ("published BETWEEN {2, 4}", nil)] as [(String, Int?)] {
                    let plan = try Self.sameAsScan(t, text, sort: sort, limit: limit, offset: offset)
                    #expect(plan.residual == nil && plan.order != .unordered, "\(text)")
                }
            }
        }
    }

    @Test("deleted records leave the scan")
    func deletions() throws {
        let t = try Self.tiedStore([indexOn("feed", "published")])
        try t.store.write { txn in
            for kind in ["item", "plain"] {
                for id in try txn.refs(ofKind: kind) where id.id.hasSuffix("2") || id.id.hasSuffix("4") { try txn.delete(id) }
            }
        }
        for offset in [0, 1, 3, 9] {
            _ = try Self.sameAsScan(t, "feed == 0", sort: "published:desc", limit: 3, offset: offset)
            _ = try Self.sameAsScan(t, "feed == 0", sort: "published", limit: 3, offset: offset)
        }
    }
}
