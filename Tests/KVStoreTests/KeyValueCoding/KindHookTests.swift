import Foundation
import Testing
@testable import KVStore

@Suite struct NilForScalarTests {
    @Test func aHookCanStoreZeroInstead() throws {
        var person = try Kind("person")
        person.setNilValueForKey = { key, _ in key == "age" ? .int(0) : nil }
        let t = try TemporaryStore(kinds: [person])
        let ada = ref("person/ada")
        try t.store.insert(["age": 36, "alive": true], as: ada)
        try t.store.setValue(nil, forKey: "age", of: ada)
        try t.store.setValue(nil, forKey: "alive", of: ada)   // hook returns nil: the key is removed
        #expect(try t.store.record(ada) == ["age": 0])
    }

    @Test func aDeclaredScalarCallsTheHookEvenWhenAbsent() throws {
        let counter = try Kind("counter", keys: ["n": .int, "label": .string])
        let t = try TemporaryStore(kinds: [counter])
        let c = ref("counter/1")
        try t.store.insert(["label": "x"], as: c)
        #expect(performing: { try t.store.setValue(nil, forKey: "n", of: c) }, throws: code(.nilForScalar))
        try t.store.setValue(nil, forKey: "label", of: c)  // not a scalar: removal
        #expect(try t.store.record(c) == [:])
    }

    @Test func aThrowingHookAbortsTheWrite() throws {
        struct Refused: Error {}
        var kind = try Kind("thing")
        kind.setNilValueForKey = { _, _ in throw Refused() }
        let t = try TemporaryStore(kinds: [kind])
        try t.store.insert(["n": 1], as: ref("thing/a"))
        #expect(throws: Refused.self) { try t.store.setValue(nil, forKey: "n", of: ref("thing/a")) }
        #expect(try t.store.value(forKey: "n", of: ref("thing/a")) == 1)
    }
}

@Suite struct UndefinedKeyTests {
    @Test func openKindsReadNilAndStoreNewKeysByDefault() throws {
        let t = try TemporaryStore()
        let a = ref("note/a")
        try t.store.insert([:], as: a)
        #expect(try t.store.value(forKey: "anything", of: a) == nil)
        try t.store.setValue("new", forKey: "anything", of: a)
        #expect(try t.store.value(forKey: "anything", of: a) == "new")
    }

    @Test func closedKindsRejectUndeclaredKeysByDefault() throws {
        let person = try Kind("person", keys: ["name": .string, "age": .int])
        let t = try TemporaryStore(kinds: [person])
        let ada = ref("person/ada")
        try t.store.insert(["name": "Ada"], as: ada)
        #expect(try t.store.value(forKey: "age", of: ada) == nil)  // declared, absent
        #expect {
            try t.store.value(forKey: "agee", of: ada)
        } throws: { error in
            (error as? KeyValueCodingError)?.code == .undefinedKey && "\(error)".contains("'agee'")
        }
        #expect(performing: { try t.store.setValue(1, forKey: "agee", of: ada) }, throws: code(.undefinedKey))
        #expect(performing: { try t.store.removeValue(forKey: "agee", of: ada) }, throws: code(.undefinedKey))
        #expect(performing: { try t.store.insert(["nick": "A"], as: ref("person/b")) }, throws: code(.undefinedKey))
        #expect(try t.store.journalEntries().map(\.change) == [.kindDeclared, .recordInserted])
    }

    @Test func declaredTypesAreEnforced() throws {
        let person = try Kind("person", keys: ["name": .string, "weight": .double, "any": nil])
        let t = try TemporaryStore(kinds: [person])
        let ada = ref("person/ada")
        try t.store.insert(["name": "Ada", "weight": 60], as: ada)   // an int widens to double
        #expect(try t.store.value(forKey: "weight", of: ada) == .double(60))
        try t.store.setValue([1, "two"], forKey: "any", of: ada)
        #expect {
            try t.store.setValue(42, forKey: "name", of: ada)
        } throws: { error in
            (error as? KeyValueCodingError)?.code == .typeMismatch && "\(error)".contains("declared string")
        }
        #expect(performing: { try t.store.insert(["name": 1], as: ref("person/b")) }, throws: code(.typeMismatch))
    }

    @Test func hooksCanAliasARenamedKeyAndComputeKeys() throws {
        var person = try Kind("person", keys: ["name": .string, "first": .string, "last": .string])
        person.valueForUndefinedKey = { key, ref, txn in
            switch key {
            case "fullName":  // an alias of a renamed key
                return try txn.value(forKey: "name", of: ref)
            case "initials":  // computed
                let f = try txn.value(forKey: "first", of: ref)?.stringValue?.prefix(1) ?? ""
                let l = try txn.value(forKey: "last", of: ref)?.stringValue?.prefix(1) ?? ""
                return .string(String(f + l))
            default:
                throw KeyValueCodingError.undefinedKey(key, kind: "person", ref: ref)
            }
        }
        person.setValueForUndefinedKey = { value, key, ref, txn in
            guard key == "fullName" else { throw KeyValueCodingError.undefinedKey(key, kind: "person", ref: ref, writing: true) }
            try txn.setValue(value, forKey: "name", of: ref)
        }
        let t = try TemporaryStore(kinds: [person])
        let ada = ref("person/ada")
        try t.store.insert(["name": "Ada", "first": "Ada", "last": "Lovelace"], as: ada)
        #expect(try t.store.value(forKey: "fullName", of: ada) == "Ada")
        #expect(try t.store.value(forKey: "initials", of: ada) == "AL")
        try t.store.setValue("Ada King", forKey: "fullName", of: ada)
        #expect(try t.store.value(forKey: "name", of: ada) == "Ada King")
        #expect(try t.store.journalEntries().last?.keyPath == "name")
        #expect(performing: { try t.store.value(forKey: "zzz", of: ada) }, throws: code(.undefinedKey))
    }

    @Test func anOpenKindsSetHookSeesOnlyKeysTheRecordLacks() throws {
        var note = try Kind("note")
        note.setValueForUndefinedKey = { value, key, ref, txn in
            try txn.storeValue(value, forKey: key.lowercased(), of: ref)
        }
        let t = try TemporaryStore(kinds: [note])
        let a = ref("note/a")
        try t.store.insert(["Title": "kept"], as: a)
        try t.store.setValue("x", forKey: "Title", of: a)   // defined: stored as is
        try t.store.setValue("y", forKey: "Body", of: a)    // undefined: the hook lowercases it
        #expect(try t.store.record(a) == ["Title": "x", "body": "y"])
    }
}

@Suite struct ValidationTests {
    static func person() throws -> Kind {
        var kind = try Kind("person")
        kind.validators["name"] = { value, _, _ in
            guard case .string(let s)? = value else { return }
            let trimmed = s.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { throw KeyValueCodingError.validationFailed(key: "name", reason: "a name cannot be blank") }
            value = .string(trimmed)
        }
        kind.validators["age"] = { value, _, _ in
            struct Negative: Error, CustomStringConvertible { var description: String { "an age cannot be negative" } }
            if let n = value?.intValue, n < 0 { throw Negative() }
        }
        return kind
    }

    @Test func plainSetsDoNotValidate() throws {
        let t = try TemporaryStore(kinds: [try Self.person()])
        let ada = ref("person/ada")
        try t.store.insert([:], as: ada)
        try t.store.setValue("  Ada ", forKey: "name", of: ada)
        #expect(try t.store.value(forKey: "name", of: ada) == "  Ada ")
    }

    @Test func validatingSetAcceptsSanitisesAndRejects() throws {
        let t = try TemporaryStore(kinds: [try Self.person()])
        let ada = ref("person/ada")
        try t.store.insert([:], as: ada)
        try t.store.write { try $0.validatingSetValue("  Ada ", forKey: "name", of: ada) }
        #expect(try t.store.value(forKey: "name", of: ada) == "Ada")
        #expect(performing: { try t.store.write { try $0.validatingSetValue("   ", forKey: "name", of: ada) } }, throws: code(.validationFailed))
        #expect {
            try t.store.write { try $0.validatingSetValue(-1, forKey: "age", of: ada) }
        } throws: { error in
            (error as? KeyValueCodingError)?.code == .validationFailed && "\(error)".contains("cannot be negative")
        }
        var candidate: Value? = " Bo "
        try t.store.write { try $0.validateValue(&candidate, forKey: "name", of: ada) }
        #expect(candidate == "Bo")
    }

    @Test func theStoreOptionValidatesEverySetAndInsert() throws {
        var options = Store.Options.testing
        options.validatesOnSet = true
        let t = try TemporaryStore(options: options, kinds: [try Self.person()])
        let ada = ref("person/ada")
        try t.store.insert(["name": " Ada "], as: ada)
        #expect(try t.store.value(forKey: "name", of: ada) == "Ada")
        #expect(performing: { try t.store.setValue(-3, forKey: "age", of: ada) }, throws: code(.validationFailed))
        #expect(performing: { try t.store.insert(["age": -3], as: ref("person/b")) }, throws: code(.validationFailed))
    }
}
