import Foundation
import Testing
@testable import KVStore

@Suite struct KeyValueCodingReadTests {
    let t: TemporaryStore
    let ada = ref("person/ada")
    let william = ref("person/william")

    init() throws {
        t = try TemporaryStore()
        try t.store.write { [ada, william] txn in
            try txn.insert(["name": "William", "address": ["city": "Ockham"]], as: william)
            try txn.insert([
                "name": "Ada",
                "address": ["city": "London", "geo": ["lat": 51.5]],
                "spouse": .reference(william),
                "children": [["name": "Byron"], ["name": "Anne", "age": 3], ["nick": "Ral"]],
                "matrix": [[1, 2], [3]],
                "friends": [.reference(william), .reference(ref("person/ghost"))],
            ], as: ada)
        }
    }

    @Test func valueForKey() throws {
        #expect(try t.store.value(forKey: "name", of: ada) == "Ada")
        #expect(try t.store.value(forKey: "missing", of: ada) == nil)
    }

    @Test func keyPathsThroughDictionariesAndReferences() throws {
        #expect(try t.store.value(forKeyPath: "address.city", of: ada) == "London")
        #expect(try t.store.value(forKeyPath: "address.geo.lat", of: ada) == 51.5)
        #expect(try t.store.value(forKeyPath: "spouse.name", of: ada) == "William")
        #expect(try t.store.value(forKeyPath: "spouse.address.city", of: ada) == "Ockham")
    }

    @Test func aMissingIntermediateYieldsNil() throws {
        #expect(try t.store.value(forKeyPath: "nothing.city", of: ada) == nil)
        #expect(try t.store.value(forKeyPath: "address.nothing.deeper", of: ada) == nil)
        #expect(try t.store.value(forKeyPath: "friends.name", of: ada) == ["William", .null])
    }

    @Test func arraysAreMappedElementWiseWithNullsAndNotFlattened() throws {
        #expect(try t.store.value(forKeyPath: "children.name", of: ada) == ["Byron", "Anne", .null])
        #expect(try t.store.value(forKeyPath: "children.age", of: ada) == [.null, 3, .null])
        #expect(try t.store.value(forKeyPath: "matrix", of: ada) == [[1, 2], [3]])
    }

    @Test func collectionOperatorsOverArrayValues() throws {
        #expect(try t.store.value(forKeyPath: "children.@count", of: ada) == 3)
        #expect(try t.store.value(forKeyPath: "children.@sum.age", of: ada) == 3)
        #expect(try t.store.value(forKeyPath: "children.@max.name", of: ada) == "Byron")
        #expect(try t.store.value(forKeyPath: "matrix.@unionOfArrays", of: ada) == [1, 2, 3])
    }

    @Test func readingIntoAScalarIsAnError() throws {
        #expect(performing: { try t.store.value(forKeyPath: "name.first", of: ada) }, throws: code(.notAContainer))
    }

    @Test func malformedKeyPathsAndUnknownOperatorsAreErrors() throws {
        #expect(performing: { try t.store.value(forKeyPath: "a..b", of: ada) }, throws: code(.invalidKeyPath))
        #expect(performing: { try t.store.value(forKeyPath: "children.@median.age", of: ada) }, throws: code(.unknownOperator))
    }

    @Test func aMissingRecordIsAnError() throws {
        #expect(performing: { try t.store.value(forKey: "name", of: ref("person/ghost")) }, throws: code(.recordNotFound))
        #expect(performing: { try t.store.value(forKeyPath: "a.b", of: ref("person/ghost")) }, throws: code(.recordNotFound))
    }

    @Test func dictionaryWithValuesGivesNullForAbsentKeys() throws {
        #expect(try t.store.dictionaryWithValues(forKeys: ["name", "nope"], of: ada) == ["name": "Ada", "nope": .null])
    }

    @Test func operatorsOverAllRecordsOfAKind() throws {
        try t.store.write { txn in
            for (id, amount) in [("1", Value.int(10)), ("2", .int(32)), ("3", .double(0.5))] {
                try txn.insert(["amount": amount, "customer": .reference(ada)], as: ref("invoice/\(id)"))
            }
            try txn.insert(["customer": .reference(william)], as: ref("invoice/4"))
        }
        #expect(try t.store.value(forKeyPath: "@count", ofKind: "invoice") == 4)
        #expect(try t.store.value(forKeyPath: "@sum.amount", ofKind: "invoice") == 42.5)
        #expect(try t.store.value(forKeyPath: "@max.amount", ofKind: "invoice") == 32)
        #expect(try t.store.value(forKeyPath: "@min.amount", ofKind: "invoice") == 0.5)
        #expect(try t.store.value(forKeyPath: "@avg.amount", ofKind: "invoice") == .double(42.5 / 4))
        #expect(try t.store.value(forKeyPath: "@distinctUnionOfObjects.customer.name", ofKind: "invoice") == ["Ada", "William"])
        #expect(try t.store.value(forKeyPath: "amount", ofKind: "invoice") == [10, 32, 0.5, .null])
        #expect(try t.store.value(forKeyPath: "@sum.amount", ofKind: "empty") == 0)
        #expect(try t.store.value(forKeyPath: "@avg.amount", ofKind: "empty") == nil)
    }
}

@Suite struct KeyValueCodingWriteTests {
    let t: TemporaryStore
    let ada = ref("person/ada")
    let william = ref("person/william")

    init() throws {
        t = try TemporaryStore()
        try t.store.insert(["name": "William"], as: william)
        try t.store.insert(["name": "Ada", "address": ["city": "London"], "spouse": .reference(william), "age": 36], as: ada)
    }

    @Test func setValueAndRemoveValue() throws {
        try t.store.setValue("Augusta", forKey: "name", of: ada)
        try t.store.setValue(nil, forKey: "address", of: ada)  // non-scalar: nil removes
        try t.store.removeValue(forKey: "age", of: ada)        // explicit removal of a scalar is allowed
        #expect(try t.store.record(ada) == ["name": "Augusta", "spouse": .reference(william)])
    }

    @Test func setValueForKeyPathThroughDictionariesAndReferences() throws {
        try t.store.setValue("Paris", forKeyPath: "address.city", of: ada)
        try t.store.setValue("W. King", forKeyPath: "spouse.name", of: ada)
        #expect(try t.store.value(forKeyPath: "address.city", of: ada) == "Paris")
        #expect(try t.store.value(forKey: "name", of: william) == "W. King")
        let entries = try t.store.journalEntries(from: 3)
        #expect(entries.map(\.keyPath) == ["address.city", "name"])
        #expect(entries.map(\.ref) == [ada, william])
    }

    @Test func aMissingIntermediateOnSetIsAnErrorNamingThePath() throws {
        #expect {
            try t.store.setValue("x", forKeyPath: "office.room.number", of: ada)
        } throws: { error in
            let e = error as? KeyValueCodingError
            return e?.code == .missingIntermediate && "\(error)".contains("office.room.number")
        }
        #expect(performing: { try t.store.setValue(1, forKeyPath: "name.first", of: ada) }, throws: code(.notAContainer))
        #expect(performing: { try t.store.setValue(1, forKeyPath: "address.@count", of: ada) }, throws: code(.invalidKeyPath))
        #expect(try t.store.journalEntries().count == 2)
    }

    @Test func setValuesForKeysTreatsNullAsNilAndIsOneCommit() throws {
        try t.store.setValuesForKeys(["name": "A.", "address": .null, "title": "Countess"], of: ada)
        #expect(try t.store.record(ada) == ["name": "A.", "age": 36, "spouse": .reference(william), "title": "Countess"])
        let entries = try t.store.journalEntries(from: 3)
        #expect(entries.count == 3)
        #expect(Set(entries.map(\.commitID)).count == 1)
    }

    @Test func settingOnAMissingRecordIsAnError() throws {
        #expect(performing: { try t.store.setValue(1, forKey: "x", of: ref("person/ghost")) }, throws: code(.recordNotFound))
    }

    @Test func nilOnAStoredScalarCallsTheDefaultHookWhichThrows() throws {
        #expect {
            try t.store.setValue(nil, forKey: "age", of: ada)
        } throws: { error in
            (error as? KeyValueCodingError)?.code == .nilForScalar && "\(error)".contains("'age'")
        }
        #expect(try t.store.value(forKey: "age", of: ada) == 36)
        #expect(performing: { try t.store.setValue(.null, forKey: "age", of: ada) }, throws: code(.nilForScalar))
    }
}

@Suite struct MutableArrayTests {
    @Test func indexLevelChangesAreJournaledWithTheirIndexes() throws {
        let t = try TemporaryStore()
        let ada = ref("person/ada")
        try t.store.insert(["tags": ["a", "b", "c"]], as: ada)
        try t.store.write { txn in
            let tags = txn.mutableArray(forKey: "tags", of: ada)
            try tags.insert(["x", "y"], at: [0, 2])     // x a y b c
            try tags.remove(at: [1, 3])                 // x y c
            try tags.replace(at: [2], with: ["C"])      // x y C
            try tags.append("z")                        // x y C z
        }
        #expect(try t.store.value(forKey: "tags", of: ada) == ["x", "y", "C", "z"])
        let entries = try t.store.journalEntries(from: 2)
        #expect(entries.map(\.change) == [.insertion, .removal, .replacement, .insertion])
        #expect(entries.map(\.indexes) == [[0, 2], [1, 3], [2], [3]])
        #expect(entries[0].newValue == ["x", "y"] && entries[0].oldValue == nil)
        #expect(entries[1].oldValue == ["a", "b"] && entries[1].newValue == nil)
        #expect(entries[2].oldValue == ["c"] && entries[2].newValue == ["C"])
    }

    @Test func anAbsentKeyIsAnEmptyArray() throws {
        let t = try TemporaryStore()
        let ada = ref("person/ada")
        try t.store.insert([:], as: ada)
        try t.store.write { try $0.mutableArray(forKey: "tags", of: ada).append("first") }
        #expect(try t.store.value(forKey: "tags", of: ada) == ["first"])
    }

    @Test func badIndexesAndNonArraysAreErrorsThatChangeNothing() throws {
        let t = try TemporaryStore()
        let ada = ref("person/ada")
        try t.store.insert(["tags": ["a"], "name": "Ada"], as: ada)
        #expect(performing: { try t.store.write { try $0.mutableArray(forKey: "tags", of: ada).remove(at: 5) } }, throws: code(.indexOutOfRange))
        #expect(performing: { try t.store.write { try $0.mutableArray(forKey: "tags", of: ada).insert("q", at: 3) } }, throws: code(.indexOutOfRange))
        #expect(performing: { try t.store.write { try $0.mutableArray(forKey: "tags", of: ada).insert(["p", "q"], at: [1, 0]) } }, throws: code(.invalidKeyPath))
        #expect(performing: { try t.store.write { try $0.mutableArray(forKey: "name", of: ada).append("x") } }, throws: code(.notACollection))
        #expect(try t.store.record(ada) == ["tags": ["a"], "name": "Ada"])
        #expect(try t.store.journalEntries().count == 1)
    }
}

@Suite struct RemoveKeyPathTests {
    @Test func removesNestedKeysAndKeysOfReferencedRecordsWithoutTheNilHook() throws {
        let t = try TemporaryStore()
        let ada = ref("person/ada"), william = ref("person/william")
        try t.store.insert(["age": 40], as: william)
        try t.store.insert(["address": ["city": "London", "zip": 1], "spouse": .reference(william)], as: ada)
        try t.store.write { txn in
            try txn.removeValue(forKeyPath: "address.zip", of: ada)
            try txn.removeValue(forKeyPath: "spouse.age", of: ada)      // a scalar: removal, not nil-for-scalar
            try txn.removeValue(forKeyPath: "nothing.here", of: ada)    // a missing intermediate: no-op
        }
        #expect(try t.store.value(forKey: "address", of: ada) == ["city": "London"])
        #expect(try t.store.record(william) == [:])
        #expect(try t.store.journalEntries(from: 3).map(\.keyPath) == ["address.zip", "age"])
        #expect(performing: { try t.store.write { try $0.removeValue(forKeyPath: "a.b", of: ref("person/none")) } },
                throws: { ($0 as? KeyValueCodingError)?.code == .recordNotFound })
    }
}
