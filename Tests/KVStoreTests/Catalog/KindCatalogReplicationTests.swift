import Foundation
import Testing
@testable import KVStore
import TestSupport

/// The catalog through journals: replicas, `journal apply` and replays carry it, and applying
/// enforces the applying store's catalog as a local write does.
@Suite struct KindCatalogReplicationTests {
    static let person = try! Kind("person", keys: ["name": .string, "age": .int])
    let source: TemporaryStore
    let directory: TemporaryDirectory

    init() throws {
        source = try TemporaryStore()
        directory = try TemporaryDirectory()
        try source.store.insert(["name": "Ada"], as: ref("person/ada"))
        try source.store.register(Self.person)
        try source.store.insert(["name": "Bob", "age": 40], as: ref("person/bob"))
        var wider = Self.person
        wider.declaredKeys?["email"] = .string
        wider.schemaVersion = 2
        try source.store.register(wider)
        try source.store.insert(["email": "grace@example.com"], as: ref("person/grace"))
    }

    private func catalog(_ store: Store) throws -> [Value?] {
        try store.read { try $0.declaredKinds().map { KindDeclaration($0).journalValue } }
    }

    @Test func aReplicaGetsTheSourcesCatalogAndEnforcesItOncePromoted() throws {
        try Replicator(source: source.store, replicaPath: directory.path("replica"), options: .testing).run()
        let replica = try Store(path: directory.path("replica"), options: .testing)
        #expect(try catalog(replica) == catalog(source.store) && catalog(replica).count == 1)
        #expect(try allRecords(replica) == allRecords(source.store))
        #expect(try replica.statistics().formatVersion == 2)
        #expect(try replica.verify().isHealthy)
        // A replica's catalog comes from its source: registering another declaration is refused.
        #expect(throws: StoreError.self) { try replica.register(Self.person) }
        try replica.promote()
        #expect(performing: { try replica.setValue(1, forKey: "bogus", of: ref("person/ada")) }, throws: code(.undefinedKey))
    }

    @Test func journalApplyAndReplayCarryTheCatalog() throws {
        let applied = try TemporaryStore()
        try apply(exported(source.store), to: applied.store)
        #expect(try catalog(applied.store) == catalog(source.store))
        let replayed = try TemporaryStore()
        try source.store.replayJournal(into: replayed.store)
        #expect(try catalog(replayed.store) == catalog(source.store))
        #expect(try replayed.store.journalEntries().filter { $0.change == .kindDeclared }.count == 2)
        // Replaying up to the first declaration gives the catalog as it was then.
        let early = try TemporaryStore()
        let first = try #require(try source.store.journalEntries().first { $0.change == .kindDeclared })
        try source.store.replayJournal(into: early.store, until: .sequence(first.sequence))
        #expect(try early.store.read { try $0.declaredKind(named: "person")?.declaredKeys } == Self.person.declaredKeys)
    }

    /// The applying store's catalog refuses what its closed kind does not declare, through the
    /// decoding apply and the encoded one (record insertions written as their bytes).
    @Test(arguments: [false, true])
    func applyingRefusesWhatTheTargetsCatalogRefuses(encoded: Bool) throws {
        let other = try TemporaryStore()
        try other.store.insert(["name": "Eve", "bogus": 1], as: ref("person/eve"))
        var options = Store.Options.testing
        options.kinds = [Self.person]
        let targetPath = directory.path("target")
        let target = try Store(path: targetPath, options: options)
        let before = try target.journalEntries()
        #expect(performing: {
            if encoded {
                try Replicator(source: other.store, replicaPath: targetPath, options: .testing).run()
            } else {
                try apply(exported(other.store), to: target)
            }
        }, throws: applyError(.diverged, "person/eve: undefined key 'bogus' of closed kind 'person'"))
        #expect(try target.journalEntries() == before && target.record(ref("person/eve")) == nil)
    }

    @Test func applyingRefusesAValueOfAnotherTypeThanDeclared() throws {
        let other = try TemporaryStore()
        try other.store.insert(["name": "Eve"], as: ref("person/eve"))
        try other.store.setValue("old", forKey: "age", of: ref("person/eve"))
        let target = try TemporaryStore(kinds: [Self.person])
        #expect(performing: { try apply(exported(other.store), to: target.store) },
                throws: applyError(.diverged, "key 'age' is declared int, cannot set a string"))
    }

    /// A journal whose records break its own catalog (written past the rules) does not replay.
    @Test func replayRefusesARecordTheCatalogOfThatMomentRefuses() throws {
        try source.store.write { txn in
            try txn.journal(.recordInserted, ref: ref("person/mallory"), keyPath: nil, old: nil, new: ["bogus": true])
        }
        let copy = try TemporaryStore()
        #expect(performing: { try source.store.replayJournal(into: copy.store) },
                throws: applyError(.diverged, "person/mallory: undefined key 'bogus' of closed kind 'person'"))
    }

    @Test func aStreamWithAnUnreadableDeclarationIsRefused() throws {
        var bytes: [UInt8] = []
        let writer = try JournalStreamWriter(header: JournalStreamHeader(storeID: UUID(), firstSequence: 1, lastSequence: 1), output: { bytes += $0 })
        let entry = JournalEntry(
            sequence: 1, commitID: 1, timestamp: Date(), ref: ref("person/*"), keyPath: nil, change: .kindDeclared,
            oldValue: nil, newValue: ["format": 3, "keys": [:]])
        try writer.append(entry)
        try writer.finish()
        let target = try TemporaryStore()
        #expect(performing: { try apply(bytes, to: target.store) },
                throws: streamError(.undecodableEntry, "a declaration of kind 'person' that cannot be read: it has format 3, newer than this kvstore reads (2)"))
    }
}
