import Foundation
import KVStore
import Testing
import TestSupport

/// `kvstore kind`, and the stored kind catalog enforced by the tool's writers (a process that
/// registers no kinds).
@Suite(.tags(.subprocess), .skippedByTag) struct KindCommandTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        try dir.succeed("set", store, "person/ada", "age", "36")
    }

    private func close(_ keys: String...) throws {
        try dir.succeed(["kind", store, "person", "--closed"] + keys.flatMap { ["--key", $0] })
    }

    @Test func showsTheCatalogAsATableAndAsJSON() throws {
        #expect(try dir.succeed("kind", store).stdout == "no kind is declared: every kind is open\n")
        try close("name:string", "age:int", "notes")
        try dir.succeed("kind", store, "tag", "--closed")
        #expect(try dir.succeed("kind", store).lines == [
            "KIND    RULES   KEYS                       INDEXES  TIMES  SCHEMA",
            "person  closed  age:int name:string notes  -        -      0",
            "tag     closed  (none)                     -        -      0",
        ])
        #expect(try dir.succeed("kind", store, "invoice").lines.last == "invoice  open   -     -        -      0")
        let json = try TypedJSON.value(from: dir.succeed("kind", store, "person", "--format", "json").stdout)
        #expect(json == ["person": [
            "closed": true, "keys": ["age": "int", "name": "string", "notes": .null], "indexes": [],
            "tracksModificationTimes": false, "schemaVersion": 0,
        ]])
    }

    @Test func editsOneKindAndJournalsEachChange() throws {
        try close("name:string", "age:int")
        try dir.succeed("kind", store, "person", "--key", "email:string", "--key", "age:double")
        #expect(try dir.succeed("kind", store, "person").lines.last == "person  closed  age:double email:string name:string  -        -      0")
        try dir.succeed("kind", store, "person", "--open")
        #expect(try dir.succeed("kind", store).stdout == "no kind is declared: every kind is open\n")
        let entries = try dir.succeed("journal", "list", store).objects().filter { $0["change"] == "kindDeclared" }
        let kindRef = Value.reference(try RecordRef("person/*"))
        #expect(entries.count == 3 && entries.allSatisfy { $0["ref"] == kindRef })
        #expect(entries[0]["new"] == ["format": 1, "keys": ["age": "int", "name": "string"]] && entries[0]["old"] == nil)
        #expect(entries[2]["new"] == nil && entries[2]["old"] == entries[1]["new"])
        try dir.succeed("set", store, "person/ada", "bogus", "1")
    }

    /// `kvstore set S person/1 bogus 1` on a stored closed kind: the tool registered nothing, and
    /// enforces the stored rules with the library's errors, through set, rm and load.
    @Test func theToolsWritersEnforceTheStoredRules() throws {
        try close("name:string", "age:int", "tags")
        let before = try dir.snapshot(store)
        try dir.fail(["set", store, "person/ada", "bogus", "1"], says: "person/ada: undefined key 'bogus' of closed kind 'person'")
        try dir.fail(["set", store, "person/ada", "age", #""old""#], says: "person/ada: key 'age' is declared int, cannot set a string")
        try dir.fail(["set", store, "person/grace", "bogus", "1"], says: "person/grace: undefined key 'bogus' of closed kind 'person'")
        try dir.fail(["rm", store, "person/ada", "bogus"], says: "undefined key 'bogus'")
        let lines = #"{"kind":"person","id":"bob","values":{"name":"Bob"}}"# + "\n" + #"{"kind":"person","id":"eve","values":{"bogus":true}}"# + "\n"
        try dir.fail(["load", store, dir.write(lines, to: "in.jsonl")], says: "line 2: person/eve: undefined key 'bogus' of closed kind 'person'")
        try dir.fail(["get", store, "person/ada", "bogus"], says: "undefined key 'bogus'")
        #expect(try dir.snapshot(store) == before)
        try dir.succeed("set", store, "person/ada", "tags", #"["x"]"#)
    }

    @Test func rulesTheRecordsBreakAreRefusedNamingTheRecordAndKey() throws {
        try dir.succeed("set", store, "person/bob", "name", "1")
        let before = try dir.snapshot(store)
        try dir.fail(["kind", store, "person", "--closed", "--key", "name:string"],
                     says: "kvstore: person/ada: kind 'person' cannot be declared so: the record holds key 'age', which the declaration leaves out")
        try dir.fail(["kind", store, "person", "--closed", "--key", "name:string", "--key", "age:int"],
                     says: "kvstore: person/bob: kind 'person' cannot be declared so: key 'name' holds an int, not the declared string")
        #expect(try dir.snapshot(store) == before)
        #expect(try dir.succeed("kind", store).stdout == "no kind is declared: every kind is open\n")
    }

    @Test(arguments: [
        (["person", "--key", "age:integer"], "--key 'age:integer': unknown type 'integer'; the types are null, bool, int, double, string, bytes, date, array, dictionary, reference, and any"),
        (["person", "--closed", "--key", "a.b"], "--key 'a.b': 'a.b' is not a record's key"),
        (["person", "--closed", "--key", ":int"], "--key ':int': '' is not a record's key"),
        (["person", "--closed", "--key", "@x"], "'@x' is not a record's key"),
        (["person", "--open", "--key", "x"], "--open declares no keys"),
        (["person", "--closed", "--key", "x", "--key", "x:int"], "--key 'x' is given twice"),
        (["person", "--key", "x"], "kind 'person' is open: add --closed to declare its keys"),
        (["--closed"], "--open, --closed and --key change one kind: name it"),
        (["per son", "--closed"], "invalid record reference 'per son'"),
    ])
    func badInputIsOneLineAndChangesNothing(_ arguments: [String], _ message: String) throws {
        let before = try dir.snapshot(store)
        try dir.fail(["kind", store] + arguments, says: message)
        #expect(try dir.snapshot(store) == before)
    }

    @Test func bothOpenAndClosedIsAUsageError() throws {
        let result = try dir.kvstore("kind", store, "person", "--open", "--closed")
        #expect(result.status == 64 && result.stderr.hasPrefix("kvstore: ") && result.stdout.isEmpty, "\(result)")
    }

    /// The catalog travels with the journal: through `journal export | journal apply` and `replay`.
    @Test func exportApplyAndReplayCarryTheCatalog() throws {
        try close("name:string", "age:int")
        let stream = dir.path("journal.kvjs")
        let export = try KVStoreExecutable.run(["journal", "export", store], in: dir, output: URL(fileURLWithPath: stream))
        #expect(export.status == 0, "\(export)")
        try dir.succeed("journal", "apply", dir.path("replica"), stream)
        try dir.succeed("replay", store, "--into", dir.path("replayed"))
        let catalog = try dir.succeed("kind", store).stdout
        for copy in ["replica", "replayed"] {
            #expect(try dir.succeed("kind", dir.path(copy)).stdout == catalog)
            try dir.fail(["set", dir.path(copy), "person/ada", "bogus", "1"], says: "undefined key 'bogus' of closed kind 'person'")
        }
        try dir.fail(["kind", dir.path("replica"), "person", "--open"], says: "local writes are refused")
        try dir.succeed("promote", dir.path("replica"))
        try dir.succeed("kind", dir.path("replica"), "person", "--open")
        #expect(try dir.succeed("verify", dir.path("replica")).stdout.hasPrefix("healthy"))
    }

    /// Another process changes the catalog while a store is open here: the next write here
    /// follows the new rules.
    @Test func aCatalogChangedByAnotherProcessRulesTheNextWrite() throws {
        let open = try Store(path: store)
        try open.setValue(1, forKey: "before", of: RecordRef("person/ada"))
        try dir.succeed("kind", store, "person", "--closed", "--key", "name:string", "--key", "age:int", "--key", "before:int")
        #expect(performing: { try open.setValue(1, forKey: "after", of: RecordRef("person/ada")) }, throws: { error in
            (error as? KeyValueCodingError)?.code == .undefinedKey
        })
        #expect(try open.read { try $0.declaredKind(named: "person")?.isClosed } == true)
        try dir.succeed("kind", store, "person", "--open")
        try open.setValue(1, forKey: "after", of: RecordRef("person/ada"))
    }

    /// Rules registered by an app are enforced by the tool.
    @Test func rulesAnAppRegisteredAreEnforcedByTheTool() throws {
        do {
            let app = try Store(path: store)
            try app.register(try Kind("person", keys: ["name": .string, "age": .int]))
        }
        try dir.fail(["set", store, "person/ada", "bogus", "1"], says: "undefined key 'bogus' of closed kind 'person'")
        #expect(try dir.succeed("stat", store, "--format", "json").stdout.contains(#""format": 2"#))
    }

    /// The table of every kind ends with the migrations an app's `Migrator` applied.
    @Test func showsTheAppliedMigrations() throws {
        var migrator = Migrator()
        migrator.register("v2") { txn in try txn.setValue("Ada Lovelace", forKey: "name", of: RecordRef("person/ada")) }
        migrator.register("v3: ages") { _ in }
        try migrator.migrate(Store(path: store))
        #expect(try dir.succeed("kind", store).lines == [
            "no kind is declared: every kind is open", "applied migrations: v2, v3: ages",
        ])
        try close("name:string", "age:int")
        #expect(try dir.succeed("kind", store).lines.last == "applied migrations: v2, v3: ages")
        #expect(try dir.succeed("kind", store, "person").lines.last == "person  closed  age:int name:string  -        -      0")
        try dir.fail(["kind", store, "kvstore.migrations", "--closed"], says: "kind 'kvstore.migrations' is reserved: it records the store's migrations")
    }
}
