import Foundation
import Testing
import TestSupport
@testable import KVStore

/// The paths that apply another store's journal — the encoded insertions of a load or a
/// replica's first pass, decoded entries, `journal apply`, the replicator, `replay` — keep the
/// indexes as the source's own writes did: the two stores' index entries end up alike.
@Suite struct IndexReplicationTests {
    static let indexes = [indexOn("title"), indexOn("guid", unique: true), indexOn("feed", "n"), indexOn("tags"), indexOn("title", folded: true)]

    let directory: TemporaryDirectory
    let source: TemporaryStore

    init() throws {
        directory = try TemporaryDirectory()
        source = try indexedStore(Self.indexes)
        let store = source.store
        try store.write { txn in
            for n in 0 ..< 20 {
                try txn.insert(["title": .string("Title \(n % 4)"), "guid": .string("g\(n)"), "feed": .string("f\(n % 3)"),
                                "n": .int(Int64(n)), "tags": [.string("t\(n % 2)"), "all"]], as: RecordRef(kind: "item", id: "i\(n)"))
            }
        }
        try store.write { txn in
            try txn.setValue("ÉCOLE", forKey: "title", of: ref("item/i1"))
            try txn.setValue(["f": 1], forKeyPath: "feed", of: ref("item/i2"))
            try txn.mutableArray(forKey: "tags", of: ref("item/i3")).append("new")
            try txn.mutableArray(forKey: "tags", of: ref("item/i4")).remove(at: 0)
            try txn.mutableArray(forKey: "tags", of: ref("item/i5")).replace(at: 1, with: "replaced")
            try txn.delete(ref("item/i6"))
            try txn.removeValue(forKey: "guid", of: ref("item/i7"))
        }
        try store.setValue(["deep": ["x": 1]], forKey: "meta", of: ref("item/i8"))
        try store.setValue(2, forKeyPath: "meta.deep.x", of: ref("item/i8"))
    }

    /// A new store at `name` whose kind `item` has the indexes, opened as `Store.Options.testing`.
    func target(_ name: String) throws -> Store {
        let store = try Store(path: directory.path(name), options: .testing)
        var kind = try Kind("item")
        kind.indexes = Self.indexes
        try store.register(kind)
        return store
    }

    /// Each index's entries, keys without the index's number (which differs from store to store).
    static func contents(_ store: Store) throws -> [String: [[UInt8]]] {
        try store.read { txn in
            var contents: [String: [[UInt8]]] = [:]
            for built in try txn.builtIndexes() {
                try txn.transaction.scan(#require(txn.databases.indexes), prefix: built.prefix) { key, value in
                    contents[built.index.description, default: []].append(Array(key.dropFirst(4)) + [0xFF] + Array(value))
                    return true
                }
            }
            return contents
        }
    }

    func expectSameIndexes(_ replica: Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try Self.contents(source.store)
        #expect(expected.count == Self.indexes.count && expected.values.allSatisfy { !$0.isEmpty }, sourceLocation: sourceLocation)
        #expect(try Self.contents(replica) == expected, sourceLocation: sourceLocation)
        #expect(try replica.findings() == [], sourceLocation: sourceLocation)
        // The prefix counts of the compound index too (each feed's records).
        let area = try IndexPrefixCountTests.area(replica)
        #expect(area == (try IndexPrefixCountTests.area(source.store)) && area["feed,n"]?.count == 4, "\(area)", sourceLocation: sourceLocation)
        // The counts of irregular entries too (elements of tags, a dictionary, "ÉCOLE" folded).
        let counts = try Self.statistics(replica)
        #expect(counts == (try Self.statistics(source.store)), sourceLocation: sourceLocation)
        #expect(counts["tags"]?.element == 38 && counts["feed,n"]?.unordered == [1, 0] && counts["title (folded)"]?.reformed == [19],
                "\(counts)", sourceLocation: sourceLocation)
    }

    /// Each index's statistics, by description.
    static func statistics(_ store: Store) throws -> [String: IndexStatistics] {
        try store.read { txn in
            var counts: [String: IndexStatistics] = [:]
            for built in try txn.builtIndexes() { counts[built.index.description] = try txn.indexStatistics(of: built) }
            return counts
        }
    }

    @Test func theSourceItselfIsHealthy() throws {
        #expect(try source.store.findings() == [])
    }

    @Test func encodedInsertionsKeepTheIndexes() throws {
        let replica = try target("encoded")
        let batch = try source.store.read { try $0.sourceEntries(after: 0, limit: .max) }
        var next = 0
        while next < batch.count {
            next = try JournalApplier(store: replica, mode: .replica(source: source.store.id)).apply(batch, from: next).end
        }
        try expectSameIndexes(replica)
    }

    @Test func decodedEntriesKeepTheIndexes() throws {
        let replica = try target("decoded")
        let commits = Dictionary(grouping: try source.store.journalEntries(), by: \.commitID).sorted { $0.key < $1.key }.map(\.value)
        _ = try JournalApplier(store: replica, mode: .rebuild).apply(commits[...])
        try expectSameIndexes(replica)
    }

    @Test func journalApplyKeepsTheIndexes() throws {
        let replica = try target("applied")
        try apply(exported(source.store), to: replica)
        try expectSameIndexes(replica)
    }

    @Test func theReplicatorKeepsTheIndexes() throws {
        let replica = try target("replica")
        var options = Replicator.Options.testing
        options.replicaOptions.kinds = [replica.kind(named: "item")!]
        try Replicator(source: source.store, replicaPath: replica.path, options: options).run()
        try expectSameIndexes(replica)
        // Later changes follow.
        try source.store.setValue("Later", forKey: "title", of: ref("item/i9"))
        try Replicator(source: source.store, replicaPath: replica.path, options: options).run()
        try expectSameIndexes(replica)
    }

    @Test func replayKeepsTheIndexes() throws {
        // Replay needs an empty store: the source's journal carries the kind's declaration.
        let replica = try Store(path: directory.path("replayed"), options: .testing)
        try source.store.replayJournal(into: replica)
        try expectSameIndexes(replica)
    }

    @Test func anApplyThatBreaksAUniqueIndexAppliesNothing() throws {
        let replica = try target("clash")
        try replica.insert(["guid": "g3"], as: ref("item/local"))
        #expect(throws: KeyValueCodingError.self) { try apply(exported(source.store), to: replica) }
        #expect(try replica.count(ofKind: "item") == 1)
        #expect(try replica.findings() == [])
    }
}
