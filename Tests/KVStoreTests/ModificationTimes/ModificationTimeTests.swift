import Foundation
import Testing
@testable import KVStore

/// Per-key modification times of kinds that track them, and last-writer-wins merges.
@Suite struct ModificationTimeTests {
    let t: TemporaryStore
    var store: Store { t.store }
    let ada = ref("note/ada")

    static func tracked(_ name: String = "note") throws -> Kind {
        var kind = try Kind(name)
        kind.tracksModificationTimes = true
        return kind
    }

    init() throws {
        t = try TemporaryStore(kinds: [Self.tracked()])
    }

    @Test func everyChangeStampsItsTopLevelKeyInTheSameCommit() throws {
        try store.insert(["title": "a", "body": "b", "meta": ["tag": "x"]], as: ada)
        let inserted = try store.read { try $0.modificationTimes(of: ada) }
        #expect(Set(inserted.keys) == ["title", "body", "meta"])
        #expect(Set(inserted.values.map(\.origin)) == [store.id])
        let insertTime = try #require(try store.journalEntries().last?.timestamp)
        #expect(inserted["title"]?.time == insertTime)

        try store.setValue("x2", forKeyPath: "meta.tag", of: ada)
        try store.removeValue(forKey: "body", of: ada)
        let entries = try store.journalEntries().filter { $0.change != .kindDeclared }
        let stamps = try store.read { try $0.modificationTimes(of: ada) }
        #expect(stamps["meta"]?.time == entries[1].timestamp)
        #expect(stamps["body"]?.time == entries[2].timestamp)   // a tombstone: the key is gone
        #expect(stamps["title"]?.time == insertTime)
        #expect(try store.stampedRecord(ada)?.values["body"] == nil)
    }

    @Test func deletingTheRecordDropsItsTimes() throws {
        try store.insert(["title": "a"], as: ada)
        try store.delete(ada)
        #expect(try store.read { try $0.modificationTimes(of: ada) }.isEmpty)
    }

    @Test func kindsThatDoNotTrackHaveNoTimes() throws {
        try store.insert(["title": "a"], as: ref("plain/1"))
        try store.setValue("b", forKey: "title", of: ref("plain/1"))
        #expect(try store.read { try $0.modificationTimes(of: ref("plain/1")) }.isEmpty)
        let error = try #require(throws: ModelError.self) {
            try store.merge(ref("plain/1"), from: StampedRecord(values: ["title": "c"], time: Date(), origin: UUID()))
        }
        #expect(error.code == .untrackedKind)
        #expect(try store.record(ref("plain/1")) == ["title": "b"])
    }

    @Test func timesAreDurable() throws {
        try store.insert(["title": "a"], as: ada)
        let stamps = try store.read { try $0.modificationTimes(of: ada) }
        var options = Store.Options.testing
        options.kinds = [try Self.tracked()]
        let again = try Store(path: t.path, options: options)
        #expect(try again.read { try $0.modificationTimes(of: ada) } == stamps)
    }

    @Test func aReplicatedChangeKeepsTheSourcesTimeAndOrigin() throws {
        let source = try TemporaryStore(kinds: [Self.tracked()])
        try source.store.insert(["title": "a"], as: ada)
        try source.store.setValue("b", forKey: "title", of: ada)
        var bytes: [UInt8] = []
        _ = try source.store.exportJournal(since: 1) { bytes += $0 }
        let replica = try TemporaryStore(kinds: [Self.tracked()])
        try replica.store.applyJournal(JournalStreamReader(bytes: bytes))
        let sent = try source.store.read { try $0.modificationTimes(of: ada) }
        #expect(try replica.store.read { try $0.modificationTimes(of: ada) } == sent)
        #expect(sent["title"]?.origin == source.store.id)
    }

    // MARK: Merge

    @Test func theNewerValueWinsPerKeyAndTheRemotesStampsAreKept() throws {
        let local = Date(timeIntervalSince1970: 1_000)
        try store.insert(["title": "old", "body": "mine"], as: ada)
        let me = store.id, them = UUID()
        try store.write { txn in
            try txn.saveModificationTimes(["title": KeyStamp(time: local, origin: me), "body": KeyStamp(time: local + 10, origin: me)], of: ada)
        }
        let remote = StampedRecord(
            values: ["title": "new", "body": "theirs", "extra": 1],
            stamps: ["title": KeyStamp(time: local + 5, origin: them), "body": KeyStamp(time: local + 5, origin: them),
                     "extra": KeyStamp(time: local + 5, origin: them)])
        let changes = try store.merge(ada, from: remote)
        #expect(changes == ["title": ValueChange(old: "old", new: "new"), "extra": ValueChange(old: nil, new: 1)])
        let merged = try #require(try store.stampedRecord(ada))
        #expect(merged.values == ["title": "new", "body": "mine", "extra": 1])
        #expect(merged.stamps["title"] == KeyStamp(time: local + 5, origin: them))
        #expect(merged.stamps["body"] == KeyStamp(time: local + 10, origin: me))
        #expect(try store.merge(ada, from: remote).isEmpty)   // idempotent
    }

    @Test func aTieIsBrokenByOrigin() throws {
        let time = Date(timeIntervalSince1970: 2_000)
        let low = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
        let high = UUID(uuidString: "ffffffff-0000-0000-0000-000000000000")!
        let a = StampedRecord(values: ["k": "from low"], time: time, origin: low)
        let b = StampedRecord(values: ["k": "from high"], time: time, origin: high)
        #expect(a.merged(with: b).values == ["k": "from high"])
        #expect(b.merged(with: a).values == ["k": "from high"])
    }

    @Test func aNewerTombstoneRemovesTheKeyAndAnOlderOneDoesNot() throws {
        try store.insert(["title": "t", "body": "b"], as: ada)
        let now = try #require(try store.read { try $0.modificationTimes(of: ada) }["title"]?.time)
        let remote = StampedRecord(values: [:], stamps: [
            "title": KeyStamp(time: now + 1, origin: UUID()), "body": KeyStamp(time: now - 1, origin: UUID())])
        let changes = try store.merge(ada, from: remote)
        #expect(changes == ["title": ValueChange(old: "t", new: nil)])
        #expect(try store.record(ada) == ["body": "b"])
        #expect(try store.read { try $0.modificationTimes(of: ada) }["title"] == remote.stamps["title"])
    }

    @Test func mergingIntoAMissingRecordInsertsIt() throws {
        let remote = StampedRecord(values: ["title": "hello"], time: Date(timeIntervalSince1970: 5), origin: UUID(), removed: ["body"])
        let changes = try store.merge(ada, from: remote)
        #expect(changes == ["title": ValueChange(old: nil, new: "hello")])
        #expect(try store.stampedRecord(ada) == remote)
    }

    @Test func mergeIsOneCommitJournaledAndObservedLikeLocalChanges() throws {
        try store.insert(["title": "a", "body": "b"], as: ada)
        let before = try store.journalEntries().count
        let remote = StampedRecord(values: ["title": "x", "body": "y"], time: Date().addingTimeInterval(60), origin: UUID())
        try store.merge(ada, from: remote)
        let entries = try store.journalEntries().dropFirst(before)
        #expect(entries.map(\.keyPath) == ["body", "title"])
        #expect(Set(entries.map(\.commitID)).count == 1)
    }

    @Test func aNullInTheRemoteValuesIsATombstone() throws {
        try store.insert(["title": "t"], as: ada)
        let remote = StampedRecord(values: ["title": .null], time: Date().addingTimeInterval(60), origin: UUID())
        #expect(try store.merge(ada, from: remote) == ["title": ValueChange(old: "t", new: nil)])
        #expect(try store.stampedRecord(ada) == StampedRecord(values: [:], stamps: remote.stamps))
    }

    @Test func corruptTimesAreAClearError() throws {
        try store.insert(["title": "t"], as: ada)
        try store.write { txn in
            try txn.transaction.put(StoreLayout.MetaKey.stamps(ada), [0xFF, 0x01], in: txn.databases.meta)
        }
        let error = try #require(throws: StoreError.self) { try store.stampedRecord(ada) }
        #expect(error.code == .corrupt)
        #expect(error.message == "the modification times of note/ada are corrupt")
        #expect(throws: StoreError.self) { try store.setValue("u", forKey: "title", of: ada) }
        #expect(try store.record(ada) == ["title": "t"])
    }

    @Test func theMergeOrderIsTotalEvenForTimesThatAreNotNumbers() {
        let origin = UUID()
        let nan = StampedRecord(values: ["k": "nan"], time: Date(timeIntervalSinceReferenceDate: .nan), origin: origin)
        let five = StampedRecord(values: ["k": "five"], time: Date(timeIntervalSinceReferenceDate: 5), origin: origin)
        let otherNaN = StampedRecord(values: ["k": "other"], time: Date(timeIntervalSinceReferenceDate: .nan), origin: origin)
        // Compared outside #expect: Foundation traps describing a NaN date, should the check fail.
        let idempotent = nan.merged(with: nan) == nan
        let commutative = nan.merged(with: five) == five.merged(with: nan)
        let commutativeBetweenNaNs = nan.merged(with: otherNaN) == otherNaN.merged(with: nan)
        #expect(idempotent)
        #expect(commutative)
        #expect(commutativeBetweenNaNs)
    }

    @Test func aRemoteTimeThatIsNotFiniteIsRefusedAndChangesNothing() throws {
        try store.insert(["title": "t"], as: ada)
        let stamps = try store.read { try $0.modificationTimes(of: ada) }
        for time in [Double.nan, .infinity] {
            let remote = StampedRecord(values: ["title": "x"], time: Date(timeIntervalSinceReferenceDate: time), origin: UUID())
            let error = try #require(throws: ModelError.self) { try store.merge(ada, from: remote) }
            #expect(error.description == "note/ada title: the remote modification time is not a finite date")
            #expect(error.code == .invalidValue)
            #expect(try store.stampedRecord(ada) == StampedRecord(values: ["title": "t"], stamps: stamps))
        }
    }

    /// The documented limit of replication: the journal carries the merged values, not their
    /// stamps, so a replica stamps them with the merge's commit, made by the source.
    @Test func aReplicaStampsMergedKeysWithTheMergesCommitNotTheRemotesStamps() throws {
        try store.insert(["title": "a"], as: ada)
        let them = UUID(), remoteTime = Date().addingTimeInterval(3600)
        try store.merge(ada, from: StampedRecord(values: ["title": "b"], time: remoteTime, origin: them))
        var bytes: [UInt8] = []
        _ = try store.exportJournal(since: 1) { bytes += $0 }
        let replica = try TemporaryStore(kinds: [Self.tracked()])
        try replica.store.applyJournal(JournalStreamReader(bytes: bytes))
        let merge = try #require(try store.journalEntries().last)
        #expect(try replica.store.record(ada) == ["title": "b"])
        #expect(try store.read { try $0.modificationTimes(of: ada) }["title"] == KeyStamp(time: remoteTime, origin: them))
        #expect(try replica.store.read { try $0.modificationTimes(of: ada) }["title"] == KeyStamp(time: merge.timestamp, origin: store.id))
    }

    @Test func verifyChecksTheModificationTimes() throws {
        try store.insert(["title": "t"], as: ada)
        #expect(try store.verify().isHealthy)
        try store.write { txn in
            try txn.transaction.put(StoreLayout.MetaKey.stamps(ada), [0xFF], in: txn.databases.meta)
            try txn.saveModificationTimes(["x": KeyStamp(time: Date(), origin: UUID())], of: ref("note/gone"))
        }
        #expect(try store.verify().findings == [
            "the modification times of note/ada are corrupt", "modification times are kept for note/gone, which does not exist"])
    }

    @Test func aMergeThatInsertsReportsTheValuesTheKindStored() throws {
        var gauge = try Kind("gauge", keys: ["level": .double])
        gauge.tracksModificationTimes = true
        try store.register(gauge)
        let remote = StampedRecord(values: ["level": 3], time: Date(timeIntervalSince1970: 5), origin: UUID())
        #expect(try store.merge(ref("gauge/1"), from: remote) == ["level": ValueChange(old: nil, new: 3.0)])
    }

    @Test func aRemoteStampForAKeyNoKeyPathCanNameIsRefused() throws {
        try store.insert(["title": "t"], as: ada)
        let before = try #require(try store.stampedRecord(ada))
        let remote = StampedRecord(values: [:], stamps: ["a.b": KeyStamp(time: Date(), origin: UUID())])
        #expect(performing: { try store.merge(ada, from: remote) }, throws: code(.invalidKeyPath))
        #expect(try store.stampedRecord(ada) == before)
    }
}
