import Foundation
import Testing
@testable import KVStore

/// The kind catalog: registering stores a kind's declaration, which another `Store` that
/// registered nothing enforces; a declaration the records break is refused; what is journaled.
@Suite struct KindCatalogTests {
    static let person = try! Kind("person", keys: ["name": .string, "age": .int, "tags": .array, "nick": .string, "notes": nil])
    let t: TemporaryStore
    let ada = ref("person/ada")

    init() throws {
        t = try TemporaryStore()
        try t.store.insert(["name": "Ada", "age": 36, "tags": ["math"]], as: ada)
    }

    /// Another `Store` on the same path, which registered nothing: what another process sees.
    private func unregistered() throws -> Store {
        try Store(path: t.path, options: .testing)
    }

    @Test func registeringStoresTheDeclarationForAStoreThatRegisteredNothing() throws {
        try t.store.register(Self.person)
        let other = try unregistered()
        #expect(other.kind(named: "person") == nil)
        let declared = try #require(try other.read { try $0.declaredKind(named: "person") })
        #expect(declared.declaredKeys == Self.person.declaredKeys && declared.isClosed)
        #expect(try other.read { try $0.declaredKinds().map(\.name) } == ["person"])
        #expect(try other.read { try $0.declaredKind(named: "invoice") } == nil)
    }

    /// Every library write path refuses what the stored rules refuse, in a store that registered
    /// nothing, with the errors a registered kind gives, and changes nothing.
    @Test(arguments: [
        ("insert an undeclared key", KeyValueCodingError.Code.undefinedKey),
        ("insert a wrong type", .typeMismatch),
        ("set an undeclared key", .undefinedKey),
        ("set a wrong type", .typeMismatch),
        ("set through an undeclared key", .undefinedKey),
        ("remove an undeclared key", .undefinedKey),
        ("set values for keys", .undefinedKey),
        ("store an undeclared key", .undefinedKey),
        ("validating set of a wrong type", .typeMismatch),
        ("append to an undeclared key", .undefinedKey),
        ("append to a string key", .typeMismatch),
        ("read an undeclared key", .undefinedKey),
    ])
    func everyWritePathEnforcesTheStoredRules(_ path: String, _ expected: KeyValueCodingError.Code) throws {
        try t.store.register(Self.person)
        let other = try unregistered()
        let before = try other.journalEntries()
        let ada = self.ada, grace = ref("person/grace")
        #expect(performing: {
            try other.write { txn in
                switch path {
                case "insert an undeclared key": try txn.insert(["name": "Grace", "bogus": 1], as: grace)
                case "insert a wrong type": try txn.insert(["age": "old"], as: grace)
                case "set an undeclared key": try txn.setValue(1, forKey: "bogus", of: ada)
                case "set a wrong type": try txn.setValue("old", forKey: "age", of: ada)
                case "set through an undeclared key": try txn.setValue(1, forKeyPath: "bogus.x", of: ada)
                case "remove an undeclared key": try txn.removeValue(forKey: "bogus", of: ada)
                case "set values for keys": try txn.setValuesForKeys(["name": "A", "bogus": 1], of: ada)
                case "store an undeclared key": try txn.storeValue(1, forKey: "bogus", of: ada)
                case "validating set of a wrong type": try txn.validatingSetValue("old", forKey: "age", of: ada)
                case "append to an undeclared key": try txn.mutableArray(forKey: "bogus", of: ada).append(1)
                case "append to a string key": try txn.mutableArray(forKey: "nick", of: ada).append(1)
                default: _ = try txn.value(forKey: "bogus", of: ada)
                }
            }
        }, throws: code(expected))
        #expect(try other.journalEntries() == before)
        #expect(try other.record(ada) == ["name": "Ada", "age": 36, "tags": ["math"]])
        #expect(try other.record(grace) == nil)
    }

    @Test func aDeclarationTheRecordsBreakIsRefusedNamingTheFirstRecordAndKey() throws {
        try t.store.insert(["name": "Bob", "zzz": 1, "born": 1900], as: ref("person/bob"))
        let before = try t.store.journalEntries()
        let refusal = try #require(throws: KeyValueCodingError.self) { try t.store.register(Self.person) }
        #expect(refusal.code == .undefinedKey && refusal.ref == ref("person/bob") && refusal.keyPath == "born")
        #expect(refusal.description == "person/bob: kind 'person' cannot be declared so: the record holds key 'born', which the declaration leaves out; remove the key from the records or declare it")
        #expect(try t.store.journalEntries() == before)
        #expect(try t.store.read { try $0.declaredKind(named: "person") } == nil)
        #expect(t.store.kind(named: "person") == nil)
        #expect(try t.store.statistics().formatVersion == 1)

        var typed = try Kind("person", keys: ["name": .string, "age": .string, "tags": nil, "zzz": nil, "born": nil])
        let mismatch = try #require(throws: KeyValueCodingError.self) { try t.store.register(typed) }
        #expect(mismatch.code == .typeMismatch && mismatch.ref == ada && mismatch.keyPath == "age")
        #expect(mismatch.message.contains("key 'age' holds an int, not the declared string"))
        typed.declaredKeys?["age"] = .double  // an int is fine for a double key
        try t.store.register(typed)
        #expect(try t.store.read { try $0.declaredKind(named: "person")?.declaredType(of: "age") } == .double)
    }

    @Test func aDeclarationIsOneJournalEntryWithTheOldAndNewDeclarations() throws {
        #expect(try t.store.statistics().formatVersion == 1)
        try t.store.register(Self.person)
        let declared = try #require(try t.store.journalEntries().last)
        #expect(declared.change == .kindDeclared && declared.ref == ref("person/*") && declared.keyPath == nil && declared.oldValue == nil)
        #expect(declared.newValue == ["format": 1, "keys": ["name": "string", "age": "int", "tags": "array", "nick": "string", "notes": .null]])
        #expect(try t.store.statistics().formatVersion == 2)

        var next = Self.person
        next.schemaVersion = 2
        next.tracksModificationTimes = true
        try t.store.register(next)
        let changed = try #require(try t.store.journalEntries().last)
        #expect(changed.oldValue == declared.newValue && changed.sequence == declared.sequence + 1)
        #expect(changed.newValue?.dictionaryValue?["schemaVersion"] == 2 && changed.newValue?.dictionaryValue?["tracksModificationTimes"] == true)

        let opened = try Kind("person")  // open, nothing else: leaves the catalog
        try t.store.register(opened)
        let removed = try #require(try t.store.journalEntries().last)
        #expect(removed.newValue == nil && removed.oldValue == changed.newValue)
        #expect(try t.store.read { try $0.declaredKinds() }.isEmpty)
        try t.store.insert(["bogus": 1], as: ref("person/bob"))
    }

    @Test func registeringTheStoredDeclarationAgainWritesNothing() throws {
        try t.store.register(Self.person)
        let count = try t.store.journalEntries().count
        var withHooks = Self.person
        withHooks.validators["name"] = { _, _, _ in }
        try t.store.register(withHooks)
        try unregistered().register(Self.person)
        #expect(try t.store.journalEntries().count == count)
        // An open kind with hooks only declares nothing at all.
        var note = try Kind("note")
        note.setNilValueForKey = { _, _ in 0 }
        try t.store.register(note)
        #expect(try t.store.journalEntries().count == count)
        #expect(try t.store.read { try $0.declaredKinds().map(\.name) } == ["person"])
    }

    @Test func declareChangesTheCatalogInsideALargerWrite() throws {
        try t.store.write { txn in
            var person = try txn.declaredKind(named: "person") ?? Kind("person")
            person.declaredKeys = ["name": .string, "age": .int, "tags": nil]
            try txn.declare(person)
            // The rules apply at once, in the same transaction.
            #expect(throws: KeyValueCodingError.self) { try txn.setValue(1, forKey: "bogus", of: ada) }
            try txn.setValue(37, forKey: "age", of: ada)
        }
        let entries = try t.store.journalEntries().suffix(2)
        #expect(entries.map(\.change) == [.kindDeclared, .setting] && Set(entries.map(\.commitID)).count == 1)
    }

    /// Modification times are declared: a store that registered nothing stamps the kind's changes.
    @Test func aStoreThatRegisteredNothingStampsADeclaredKindsChanges() throws {
        var note = try Kind("note")
        note.tracksModificationTimes = true
        try t.store.register(note)
        let other = try unregistered()
        let first = ref("note/1")
        try other.insert(["title": "a"], as: first)
        #expect(try other.read { try $0.modificationTimes(of: first) }.keys.sorted() == ["title"])
        _ = try other.write { try $0.merge(first, from: StampedRecord(values: ["title": "b"], stamps: ["title": KeyStamp(time: Date().addingTimeInterval(60), origin: UUID())])) }
        #expect(try other.value(forKey: "title", of: first) == "b")
    }

    /// Catalog entries change no record: record and kind observers are not told of them.
    @Test func observersOfRecordsAndKindsAreNotToldOfCatalogEntries() throws {
        let kinds = Received<KindChanges>(), values = Received<ObservedChange>()
        let kindToken = try t.store.observeKind("person") { kinds.add($0) }
        let starToken = try t.store.observe(ref("person/*"), keyPath: "name") { values.add($0) }
        defer { kindToken.cancel(); starToken.cancel() }
        try t.store.register(Self.person)
        try t.store.setValue("Ada L.", forKey: "name", of: ada)
        #expect(try t.store.journalEntries().suffix(2).map(\.change) == [.kindDeclared, .setting])
        #expect(kinds.all.map(\.modified) == [["ada"]])
        #expect(values.count == 0)
    }
}
