import Foundation
import Testing
@testable import KVStore
import LMDB
import TestSupport

/// `Store.Options.kinds` on open, read-only opens, and damaged or newer catalog values.
@Suite struct KindCatalogOpeningTests {
    static let person = try! Kind("person", keys: ["name": .string])
    let t: TemporaryStore
    let ada = ref("person/ada")

    init() throws {
        t = try TemporaryStore()
        try t.store.insert(["name": "Ada"], as: ada)
    }

    private func open(readOnly: Bool = false, kinds: [Kind]) throws -> Store {
        var options = Store.Options.testing
        options.readOnly = readOnly
        options.kinds = kinds
        return try Store(path: t.path, options: options)
    }

    @Test func optionsKindsAreDeclaredOnOpenInOneWrite() throws {
        var note = try Kind("note")
        note.schemaVersion = 4
        _ = try open(kinds: [Self.person, note])
        let entries = try t.store.journalEntries().filter { $0.change == .kindDeclared }
        #expect(entries.map(\.ref.kind) == ["note", "person"] && Set(entries.map(\.commitID)).count == 1)
        #expect(try t.store.read { try $0.declaredKinds().map(\.name) } == ["note", "person"])
        // Opening again with the same kinds writes nothing.
        _ = try open(kinds: [Self.person, note])
        #expect(try t.store.journalEntries().count == entries.count + 1)
    }

    @Test func optionsKindsTheRecordsBreakFailTheOpen() throws {
        let strict = try Kind("person", keys: ["age": .int])
        let error = try #require(throws: StoreError.self) { _ = try open(kinds: [strict]) }
        #expect(error.code == .kindRefused)
        #expect(error.description.contains("person/ada: kind 'person' cannot be declared so: the record holds key 'name'"))
        #expect(try t.store.read { try $0.declaredKinds() }.isEmpty && t.store.journalEntries().count == 1)
    }

    /// A store at a path of its own holding `person/ada`, closed again before the test opens it
    /// read-only (one process opens a store either read-only or not).
    private static func closedStore(declaring kinds: [Kind]) throws -> (TemporaryDirectory, String, [JournalEntry]) {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        let store = try Store(path: path, options: .testing)
        try store.insert(["name": "Ada"], as: ref("person/ada"))
        try store.insert(["text": "x"], as: ref("note/1"))
        for kind in kinds { try store.register(kind) }
        return (directory, path, try store.journalEntries())
    }

    private static func openReadOnly(_ path: String, kinds: [Kind]) throws -> Store {
        var options = Store.Options.testing
        options.readOnly = true
        options.kinds = kinds
        return try Store(path: path, options: options)
    }

    /// A read-only open writes nothing: the stored declaration rules, and the kinds given add
    /// their closures only.
    @Test func aReadOnlyOpenDoesNotWriteItsKinds() throws {
        let (directory, path, entries) = try Self.closedStore(declaring: [Self.person])
        defer { _ = directory }
        var note = try Kind("note", keys: [:])
        note.valueForUndefinedKey = { key, _, _ in key == "alias" ? "from the hook" : nil }
        let reader = try Self.openReadOnly(path, kinds: [try Kind("person"), note])
        #expect(try reader.journalEntries() == entries)
        #expect(try reader.read { try $0.declaredKinds().map(\.name) } == ["person"])
        // person is still closed, as stored; note is open, as stored, with this process's hook.
        #expect(performing: { try reader.value(forKey: "other", of: ada) }, throws: code(.undefinedKey))
        #expect(try reader.value(forKey: "text", of: ref("note/1")) == "x")
        #expect(try reader.value(forKey: "alias", of: ref("note/1")) == "from the hook")
        // Registering another declaration on it fails; the same one does not.
        #expect(throws: StoreError.self) { try reader.register(try Kind("person")) }
        try reader.register(Self.person)
    }

    @Test func aReadOnlyOpenOfAStoreWithoutCatalogLeavesItAsItWas() throws {
        let (directory, path, entries) = try Self.closedStore(declaring: [])
        defer { _ = directory }
        let reader = try Self.openReadOnly(path, kinds: [Self.person])
        #expect(try reader.statistics().formatVersion == 1 && reader.journalEntries() == entries)
        #expect(try reader.value(forKey: "other", of: ada) == nil)
        #expect(try reader.read { try $0.declaredKinds() }.isEmpty)
    }

    /// Writes `bytes` as kind `kind`'s stored declaration, as damage or a newer kvstore would.
    private func storeDeclaration(_ bytes: [UInt8], of kind: String) throws {
        try t.store.environment.write { txn in
            try txn.put(StoreLayout.MetaKey.catalog(kind), bytes, in: t.store.databases.meta)
            try txn.put(StoreLayout.MetaKey.catalogVersion, withUnsafeBytes(of: UUID().uuid, Array.init), in: t.store.databases.meta)
        }
    }

    @Test func aDamagedDeclarationIsCorruptForItsKindOnlyAndRegisteringReplacesIt() throws {
        try t.store.register(Self.person)
        try storeDeclaration([1, 0xFF, 0x00], of: "person")
        let other = try Store(path: t.path, options: .testing)
        let error = try #require(throws: StoreError.self) { try other.setValue("Ada L.", forKey: "name", of: ada) }
        #expect(error.code == .corrupt && error.message.hasPrefix("the catalog's declaration of kind 'person' is damaged: "))
        #expect(!error.description.contains("\n"))
        #expect(throws: StoreError.self) { try other.read { try $0.declaredKinds() } }
        try other.insert(["any": 1], as: ref("note/1"))  // other kinds are not concerned
        try other.register(Self.person)
        try other.setValue("Ada L.", forKey: "name", of: ada)
        #expect(try other.journalEntries().last(where: { $0.change == .kindDeclared })?.oldValue == nil)
    }

    /// Stored declarations that do not read, and what their error says.
    static let damaged: [(bytes: [UInt8], problem: String)] = {
        func fields(_ fields: [String: Value]) -> [UInt8] { [1] + RecordCodec.encode(fields) }
        let keys: Value = ["a": "integer"]
        let index: Value = ["keyPaths": ["a.@count"]]
        return [
            ([], "it is empty"),
            ([0], "format 0"),
            ([1, 7, 7], "at offset"),
            (fields(["keys": keys]), "'keys' holds \"integer\", not a type name"),
            (fields(["color": "red"]), "unknown field 'color'"),
            (fields(["indexes": [index]]), "an index is invalid"),
            (fields(["schemaVersion": "2"]), "'schemaVersion' is a string"),
        ]
    }()

    @Test(arguments: damaged)
    func damagedDeclarationsAreNamed(_ bytes: [UInt8], _ problem: String) throws {
        try storeDeclaration(bytes, of: "person")
        let error = try #require(throws: StoreError.self) { try t.store.read { try $0.declaredKind(named: "person") } }
        #expect(error.code == .corrupt && error.message.contains(problem), "\(error)")
    }

    @Test func aNewerDeclarationFormatIsNewerFormatNamingTheKind() throws {
        try storeDeclaration([3] + RecordCodec.encode([:]), of: "person")
        let error = try #require(throws: StoreError.self) { try t.store.setValue("x", forKey: "name", of: ada) }
        #expect(error.code == .newerFormat)
        #expect(error.message == "the catalog's declaration of kind 'person' cannot be read: it has format 3, newer than this kvstore reads (2); use a newer kvstore")
    }
}
