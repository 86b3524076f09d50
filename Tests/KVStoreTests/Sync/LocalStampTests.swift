import Foundation
import Testing
import TestSupport
@_spi(Sync) @testable import KVStore

/// ``ReadTransaction/localStamp(atSequence:)``: what tells a store restored or copied (same id,
/// sequences reused for other changes) from the store that uploaded them.
@Suite struct LocalStampTests {
    @Test func aCopyReusesSequencesWithOtherStamps() throws {
        let t = try TemporaryStore.syncing()
        try t.store.insert(["a": 1], as: ref("note/1"))
        let copyPath = t.directory.path("copy")
        try FileManager.default.createDirectory(atPath: copyPath, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: t.path + "/data.mdb", toPath: copyPath + "/data.mdb")
        let copy = try Store(path: copyPath, options: .testing)
        #expect(copy.id == t.store.id)
        try t.store.insert(["b": 1], as: ref("note/2"))
        Thread.sleep(forTimeInterval: 0.002)
        try copy.insert(["c": 1], as: ref("note/3"))
        let sequence = try t.store.lastSequence
        #expect(try copy.lastSequence == sequence)
        let (original, copied) = (try t.store.read { try $0.localStamp(atSequence: sequence) }, try copy.read { try $0.localStamp(atSequence: sequence) })
        #expect(original != nil && copied != nil && original != copied)
        #expect(try t.store.read { try $0.localStamp(atSequence: sequence - 1) } == copy.read { try $0.localStamp(atSequence: sequence - 1) })
    }

    @Test func onlyTheStoresOwnEntriesHaveALocalStamp() throws {
        let t = try TemporaryStore.syncing()
        try t.store.insert(["a": 1], as: ref("note/1"))
        #expect(try t.store.read { try $0.localStamp(atSequence: 1) } == t.store.lastStamp().time)
        try t.store.applyRemote([remote(.insert, ref("note/2"), nil, ["b": 1], at: nowMilliseconds(), from: UUID())])
        #expect(try t.store.read { try $0.localStamp(atSequence: 2) } == nil)
        #expect(try t.store.read { try $0.localStamp(atSequence: 3) } == nil)
        #expect(try t.store.read { try $0.localStamp(atSequence: 0) } == nil)
        try t.store.truncateJournal(before: 2, force: true)  // entry 1 was never uploaded
        #expect(try t.store.read { try $0.localStamp(atSequence: 1) } == nil)
    }
}
