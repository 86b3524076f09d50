import Foundation
import Testing
@testable import KVStore

@Suite struct JournalTests {
    let t: TemporaryStore
    let ada = ref("person/ada")

    init() throws {
        t = try TemporaryStore()
        try t.store.insert(["name": "Ada", "age": 36], as: ada)
    }

    @Test func anInsertIsOneEntryWithTheWholeDictionary() throws {
        let entry = try #require(t.store.journalEntries().first)
        #expect(entry.sequence == 1 && entry.commitID == 1)
        #expect(entry.change == .recordInserted && entry.keyPath == nil)
        #expect(entry.oldValue == nil && entry.newValue == ["name": "Ada", "age": 36])
        #expect(entry.origin == nil && entry.indexes == nil && !entry.isDerived)
    }

    @Test func aDeleteIsOneEntryWithTheWholeDictionaryAsOld() throws {
        try t.store.delete(ada)
        let entry = try #require(t.store.journalEntries().last)
        #expect(entry.change == .recordDeleted && entry.oldValue == ["name": "Ada", "age": 36] && entry.newValue == nil)
    }

    @Test func eachChangedKeyIsOneEntryWithOldAndNew() throws {
        try t.store.write { txn in
            try txn.setValue("Augusta", forKey: "name", of: ada)
            try txn.setValue(37, forKey: "age", of: ada)
            try txn.removeValue(forKey: "age", of: ada)
        }
        let entries = try t.store.journalEntries(from: 2)
        #expect(entries.map(\.keyPath) == ["name", "age", "age"])
        #expect(entries.map(\.oldValue) == ["Ada", 36, 37])
        #expect(entries.map(\.newValue) == ["Augusta", 37, nil])
        #expect(entries.allSatisfy { $0.change == .setting && $0.commitID == 2 })
        #expect(entries.map(\.sequence) == [2, 3, 4])
        #expect(Set(entries.map(\.timestamp)).count == 1)
    }

    @Test func settingAnEqualValueIsANoOp() throws {
        try t.store.setValue("Ada", forKey: "name", of: ada)
        try t.store.setValuesForKeys(["name": "Ada", "age": 36], of: ada)
        try t.store.removeValue(forKey: "nothing", of: ada)
        #expect(try t.store.journalEntries().count == 1)
        // A write that changes nothing consumes no commit id.
        try t.store.setValue("B", forKey: "name", of: ada)
        #expect(try t.store.journalEntries().last?.commitID == 2)
    }

    @Test func commitIdsGroupTransactionsAndSequencesHaveNoGaps() throws {
        for i in 0..<3 {
            try t.store.write { txn in
                try txn.setValue(.int(Int64(i)), forKey: "a", of: ada)
                try txn.setValue(.int(Int64(i)), forKey: "b", of: ada)
            }
        }
        let entries = try t.store.journalEntries()
        #expect(entries.map(\.sequence) == Array(1...7))
        #expect(entries.map(\.commitID) == [1, 2, 2, 3, 3, 4, 4])
        #expect(try t.store.read { try $0.lastSequence() } == 7)
    }

    @Test func anAbortedWriteLeavesNeitherDataNorJournal() throws {
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try t.store.write { txn in
                try txn.setValue("Nope", forKey: "name", of: ada)
                try txn.insert([:], as: ref("person/b"))
                throw Abort()
            }
        }
        #expect(try t.store.value(forKey: "name", of: ada) == "Ada")
        #expect(try t.store.record(ref("person/b")) == nil)
        #expect(try t.store.journalEntries().count == 1)
        try t.store.setValue("Next", forKey: "name", of: ada)
        let last = try #require(try t.store.journalEntries().last)
        #expect(last.sequence == 2 && last.commitID == 2)
    }

    @Test func nestedWillDidForOneKeyCoalesce() throws {
        try t.store.write { txn in
            try txn.willChangeValue(forKey: "name", of: ada)
            try txn.setValue("A", forKey: "name", of: ada)
            try txn.setValue("B", forKey: "name", of: ada)
            try txn.didChangeValue(forKey: "name", of: ada)
        }
        let entries = try t.store.journalEntries(from: 2)
        #expect(entries.count == 1)
        #expect(entries.first?.oldValue == "Ada" && entries.first?.newValue == "B" && entries.first?.isDerived == false)
    }

    @Test func nestedChangesThatEndWhereTheyStartedJournalNothing() throws {
        try t.store.write { txn in
            try txn.willChangeValue(forKey: "name", of: ada)
            try txn.setValue("Temporary", forKey: "name", of: ada)
            try txn.setValue("Ada", forKey: "name", of: ada)
            try txn.didChangeValue(forKey: "name", of: ada)
        }
        #expect(try t.store.journalEntries().count == 1)
    }

    @Test func manualWillDidForADerivedKeyJournalsItsComputedValues() throws {
        var person = try Kind("person")
        person.valueForUndefinedKey = { key, ref, txn in
            guard key == "summary" else { return nil }
            let name = try txn.value(forKey: "name", of: ref)?.stringValue ?? "?"
            let age = try txn.value(forKey: "age", of: ref)?.intValue ?? 0
            return .string("\(name) (\(age))")
        }
        try t.store.register(person)
        try t.store.write { txn in
            try txn.willChangeValue(forKey: "summary", of: ada)
            try txn.setValue(37, forKey: "age", of: ada)
            try txn.didChangeValue(forKey: "summary", of: ada)
        }
        let entries = try t.store.journalEntries(from: 2)
        #expect(entries.map(\.keyPath) == ["age", "summary"])
        #expect(entries[1].oldValue == "Ada (36)" && entries[1].newValue == "Ada (37)" && entries[1].isDerived)
    }

    @Test func unbalancedWillChangeAbortsTheWrite() throws {
        #expect {
            try t.store.write { txn in
                try txn.willChangeValue(forKey: "name", of: ada)
                try txn.setValue("Lost", forKey: "name", of: ada)
            }
        } throws: { ($0 as? StoreError)?.code == .unbalancedChange }
        #expect {
            try t.store.write { try $0.didChangeValue(forKey: "name", of: ada) }
        } throws: { ($0 as? StoreError)?.code == .unbalancedChange }
        #expect(try t.store.value(forKey: "name", of: ada) == "Ada")
        #expect(try t.store.journalEntries().count == 1)
    }

    @Test func entriesAreReadBySequenceRange() throws {
        for i in 0..<10 { try t.store.setValue(.int(Int64(i)), forKey: "n", of: ada) }
        #expect(try t.store.journalEntries(from: 4, limit: 3).map(\.sequence) == [4, 5, 6])
        #expect(try t.store.journalEntries(from: 10).map(\.sequence) == [10, 11])
        #expect(try t.store.journalEntries(from: 99).isEmpty)
        #expect(try t.store.journalEntries(limit: 0).isEmpty)
        #expect(try t.store.read { try $0.firstSequence() } == 1)
    }

    @Test func entriesRoundTripThroughTheirDictionaryAndTypedJSON() throws {
        try t.store.write { txn in
            try txn.mutableArray(forKey: "tags", of: ada).insert(["x", "y"], at: [0, 1])
            try txn.setValue(["deep": [1, 2.5, .null]], forKey: "misc", of: ada)
        }
        var entries = try t.store.journalEntries()
        entries.append(JournalEntry(
            sequence: 99, commitID: 9, timestamp: Date(timeIntervalSince1970: 1.5),
            origin: JournalOrigin(storeID: UUID(), sequence: 12), ref: ada, keyPath: "x",
            change: .replacement, oldValue: ["a"], newValue: ["b"], indexes: [3], isDerived: true))
        for entry in entries {
            #expect(try JournalEntry(dictionary: entry.dictionary) == entry)
            let text = TypedJSON.string(from: entry.dictionary)
            #expect(try JournalEntry(dictionary: TypedJSON.dictionary(from: text)) == entry)
        }
    }

    @Test func theDirectEncodingIsTheDictionarysEncoding() throws {
        try t.store.write { txn in
            try txn.mutableArray(forKey: "tags", of: ada).insert(["x"], at: [0])
            try txn.removeValue(forKey: "age", of: ada)
        }
        var entries = try t.store.journalEntries()
        entries.append(JournalEntry(
            sequence: 7, commitID: 3, timestamp: Date(), origin: JournalOrigin(storeID: UUID(), sequence: 5),
            ref: ada, keyPath: "k", change: .replacement, oldValue: [1], newValue: [2], indexes: [0], isDerived: true))
        for entry in entries {
            #expect(JournalCodec.encode(entry) == RecordCodec.encode(entry.dictionary))
        }
        let insert = entries[0]
        let record = RecordCodec.encode(try #require(insert.newValue?.dictionaryValue))
        #expect(JournalCodec.encode(insert, encodedNew: record) == RecordCodec.encode(insert.dictionary))
    }

    @Test func malformedEntryDictionariesNameTheField() {
        #expect { try JournalEntry(dictionary: ["sequence": 1]) } throws: { "\($0)".contains("'commit'") }
        var d = JournalEntry(sequence: 1, commitID: 1, timestamp: Date(), ref: ref("a/b"), keyPath: "k",
                             change: .setting, oldValue: nil, newValue: 1).dictionary
        d["change"] = "exploded"
        #expect { try JournalEntry(dictionary: d) } throws: { "\($0)".contains("exploded") }
        d["change"] = 5
        #expect { try JournalEntry(dictionary: d) } throws: { "\($0)".contains("'change'") }
    }
}
