import Foundation
import Testing
@testable import KVStore

/// Arrays nested `levels` deep around one int: `nested(1)` is `[1]`.
private func nested(_ levels: Int) -> Value {
    var value = Value.int(1)
    for _ in 0..<levels { value = .array([value]) }
    return value
}

/// A record nests at most `KeyValueCodingError.maximumRecordNesting` (511) levels, so that it and
/// its journal entry (one level deeper) stay under the decoders' limit of 512: deeper writes fail
/// before anything is written, through every write path.
@Suite struct NestingLimitTests {
    @Test func nestingLevelsCountArraysAndDictionaries() {
        #expect(Value.int(3).nestingLevels == 0)
        #expect(Value.array([]).nestingLevels == 1)
        #expect(Value.dictionary(["a": .int(1), "b": .string("x")]).nestingLevels == 1)
        #expect(Value.dictionary(["flat": .int(1), "deep": .array([.dictionary(["x": .array([])])])]).nestingLevels == 4)
        #expect(nested(2_000).nestingLevels == 2_000)
    }

    @Test func aRecordAtTheLimitIsStoredAndItsJournalEntryDecodes() throws {
        let temp = try TemporaryStore()
        let tree = ref("tree/1")
        // The record's dictionary is one level, the arrays the other 510.
        try temp.store.write { try $0.insert(["tree": nested(510)], as: tree) }
        #expect(try temp.store.read { try $0.record(tree) }?["tree"] == nested(510))
        let entries = try temp.store.read { try $0.journalEntries() }
        #expect(entries.count == 1 && entries[0].newValue == .dictionary(["tree": nested(510)]))
        #expect(try temp.store.verify().isHealthy)
    }

    @Test func anInsertPastTheLimitFailsAndWritesNothing() throws {
        let temp = try TemporaryStore()
        let tree = ref("tree/1")
        #expect {
            try temp.store.write { try $0.insert(["tree": nested(511)], as: tree) }
        } throws: { error in
            let error = error as? KeyValueCodingError
            return error?.code == .nestedTooDeeply && error?.description ==
                "tree/1: cannot insert the record: the record would nest 512 levels of arrays and dictionaries, more than 511"
        }
        #expect(try temp.store.read { try $0.record(tree) } == nil)
        #expect(try temp.store.read { try $0.journalEntries() }.isEmpty)
    }

    @Test func aSetOfAKeyPastTheLimitFailsAndChangesNothing() throws {
        let temp = try TemporaryStore()
        let tree = ref("tree/1")
        try temp.store.write { try $0.insert(["name": .string("oak"), "branch": .dictionary([:])], as: tree) }
        try temp.store.setValue(nested(510), forKey: "tree", of: tree)  // 1 + 510 = 511 levels: allowed
        #expect(performing: { try temp.store.setValue(nested(511), forKey: "other", of: tree) }, throws: code(.nestedTooDeeply))
        // Through a key path: record (1) + 'branch' (1) + 510 = 512.
        #expect(performing: { try temp.store.setValue(nested(510), forKeyPath: "branch.leaf", of: tree) }, throws: code(.nestedTooDeeply))
        let record = try temp.store.read { try $0.record(tree) }
        #expect(record?.keys.sorted() == ["branch", "name", "tree"])
        #expect(record?["branch"] == .dictionary([:]))
        #expect(try temp.store.read { try $0.journalEntries() }.count == 2)
    }

    @Test func anArrayMutationPastTheLimitFailsAndTheTransactionCarriesOn() throws {
        let temp = try TemporaryStore()
        let tree = ref("tree/1")
        try temp.store.write { try $0.insert(["rings": .array([])], as: tree) }
        try temp.store.write { txn in
            // record (1) + 'rings' (1) + 510 = 512: refused; the caller catches it and goes on.
            #expect(performing: { try txn.mutableArray(forKey: "rings", of: tree).append(nested(510)) }, throws: code(.nestedTooDeeply))
            try txn.mutableArray(forKey: "rings", of: tree).append(.int(7))
        }
        #expect(try temp.store.read { try $0.record(tree) }?["rings"] == .array([.int(7)]))
        #expect(try temp.store.read { try $0.journalEntries() }.count == 2)
        #expect(try temp.store.verify().isHealthy)
    }
}
