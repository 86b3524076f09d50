import Foundation
import Testing
@testable import KVStore

/// Every write path keeps the kind's rules and the journal in step with the data.
@Suite struct KindRuleHoleTests {
    @Test func keyPathSetsWalkStoredValuesNotComputedOnes() throws {
        var note = try Kind("note")
        note.valueForUndefinedKey = { key, _, _ in key == "computed" ? ["x": 1] : nil }
        let t = try TemporaryStore(kinds: [note])
        let a = ref("note/a")
        try t.store.insert([:], as: a)
        #expect(try t.store.value(forKeyPath: "computed.x", of: a) == 1)
        #expect(performing: { try t.store.setValue(2, forKeyPath: "computed.y", of: a) }, throws: code(.missingIntermediate))
        #expect(try t.store.record(a) == [:])
    }

    @Test func keyPathSetsCannotReachAnUndeclaredKeyThroughAnAlias() throws {
        var person = try Kind("person", keys: ["address": .dictionary, "name": .string])
        person.valueForUndefinedKey = { key, ref, txn in key == "addr" ? try txn.value(forKey: "address", of: ref) : nil }
        let t = try TemporaryStore(kinds: [person])
        let ada = ref("person/ada")
        try t.store.insert(["address": ["city": "London"]], as: ada)
        #expect(performing: { try t.store.setValue("Paris", forKeyPath: "addr.city", of: ada) }, throws: code(.undefinedKey))
        #expect(try t.store.record(ada) == ["address": ["city": "London"]])
    }

    @Test func storeValueRefusesAClosedKindsUndeclaredKeys() throws {
        let person = try Kind("person", keys: ["name": .string])
        let t = try TemporaryStore(kinds: [person])
        let ada = ref("person/ada")
        try t.store.insert([:], as: ada)
        #expect(performing: { try t.store.write { try $0.storeValue(1, forKey: "bogus", of: ada) } }, throws: code(.undefinedKey))
    }

    @Test func validateOnSetCoversArraysAndKeyPaths() throws {
        var kind = try Kind("thing")
        struct No: Error {}
        kind.validators["tags"] = { value, _, _ in if value?.arrayValue?.contains("sneaky") == true { throw No() } }
        kind.validators["address"] = { value, _, _ in
            if case .dictionary(var d)? = value, let city = d["city"]?.stringValue {
                d["city"] = .string(city.uppercased())  // sanitise
                value = .dictionary(d)
            }
        }
        var options = Store.Options.testing
        options.validatesOnSet = true
        let t = try TemporaryStore(options: options, kinds: [kind])
        let a = ref("thing/a")
        try t.store.insert(["tags": ["ok"], "address": ["city": "LONDON"]], as: a)
        #expect(performing: { try t.store.write { try $0.mutableArray(forKey: "tags", of: a).append("sneaky") } }, throws: code(.validationFailed))
        try t.store.setValue("paris", forKeyPath: "address.city", of: a)
        #expect(try t.store.value(forKeyPath: "address.city", of: a) == "PARIS")
        let last = try #require(try t.store.journalEntries().last)
        #expect(last.keyPath == "address" && last.newValue == ["city": "PARIS"] && last.oldValue == ["city": "LONDON"])
        #expect(try t.store.value(forKey: "tags", of: a) == ["ok"])
    }

    @Test func creatingAnArrayKeyGoesThroughTheOpenKindsSetHook() throws {
        var note = try Kind("note")
        note.setValueForUndefinedKey = { _, key, ref, _ in
            throw KeyValueCodingError.undefinedKey(key, kind: "note", ref: ref, writing: true)
        }
        let t = try TemporaryStore(kinds: [note])
        let a = ref("note/a")
        try t.store.insert(["list": [1]], as: a)
        #expect(performing: { try t.store.write { try $0.mutableArray(forKey: "arr", of: a).append(1) } }, throws: code(.undefinedKey))
        try t.store.write { try $0.mutableArray(forKey: "list", of: a).append(2) }  // defined: index-level
        #expect(try t.store.journalEntries().last?.change == .insertion)
    }

    @Test func creatingAnArrayKeyIsJournaledAsASetting() throws {
        let t = try TemporaryStore()
        let a = ref("note/a")
        try t.store.insert([:], as: a)
        try t.store.write { try $0.mutableArray(forKey: "tags", of: a).insert(["x", "y"], at: [0, 1]) }
        let last = try #require(try t.store.journalEntries().last)
        #expect(last.change == .setting && last.oldValue == nil && last.newValue == ["x", "y"])
    }

    @Test func aNilHookReturningNullRemovesTheKey() throws {
        var person = try Kind("person")
        person.setNilValueForKey = { _, _ in .null }
        let t = try TemporaryStore(kinds: [person])
        let ada = ref("person/ada")
        try t.store.insert(["age": 3], as: ada)
        try t.store.setValue(nil, forKey: "age", of: ada)
        #expect(try t.store.record(ada) == [:])
        #expect(try t.store.journalEntries().last?.newValue == nil)
    }

    @Test func replacingElementsWithEqualValuesJournalsOnlyRealChanges() throws {
        let t = try TemporaryStore()
        let a = ref("note/a")
        try t.store.insert(["tags": ["a", "b", "c"]], as: a)
        try t.store.write { try $0.mutableArray(forKey: "tags", of: a).replace(at: 0, with: "a") }
        #expect(try t.store.journalEntries().count == 1)
        try t.store.write { try $0.mutableArray(forKey: "tags", of: a).replace(at: [0, 1, 2], with: ["a", "B", "c"]) }
        let last = try #require(try t.store.journalEntries().last)
        #expect(last.indexes == [1] && last.oldValue == ["b"] && last.newValue == ["B"])
    }

    @Test(arguments: ["", "a.b", "@count"])
    func keysThatNoKeyPathCanNameAreRefused(key: String) throws {
        let t = try TemporaryStore()
        let a = ref("note/a")
        try t.store.insert([:], as: a)
        #expect(performing: { try t.store.setValue(1, forKey: key, of: a) }, throws: code(.invalidKeyPath))
        #expect(performing: { try t.store.insert([key: 1], as: ref("note/b")) }, throws: code(.invalidKeyPath))
        // Nested dictionaries may hold any keys.
        try t.store.setValue([key: 1], forKey: "nested", of: a)
    }

    @Test func validatingSetValidatesOnceWithTheStoreOption() throws {
        var kind = try Kind("thing")
        kind.validators["n"] = { value, _, _ in if let n = value?.intValue { value = .int(n + 1) } }
        var options = Store.Options.testing
        options.validatesOnSet = true
        let t = try TemporaryStore(options: options, kinds: [kind])
        let a = ref("thing/a")
        try t.store.insert([:], as: a)
        try t.store.write { try $0.validatingSetValue(1, forKey: "n", of: a) }
        #expect(try t.store.value(forKey: "n", of: a) == 2)
    }
}
