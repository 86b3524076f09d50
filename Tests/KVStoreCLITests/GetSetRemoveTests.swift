import Foundation
import KVStore
import Testing
import TestSupport

/// `get`, `set` and `rm` end to end.
@Suite(.tags(.subprocess), .skippedByTag) struct GetSetRemoveTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
    }

    @Test func setCreatesTheStoreAndTheRecord() throws {
        #expect(!FileManager.default.fileExists(atPath: store))
        let set = try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        #expect(set.stdout.isEmpty)
        #expect(try dir.succeed("get", store, "person/ada").stdout == #"{"name":"Ada"}"# + "\n")
    }

    @Test func setCreatesTheStoreInAnEmptyDirectory() throws {
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: false)
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        #expect(try dir.succeed("get", store, "person/ada", "name").stdout == "\"Ada\"\n")
    }

    @Test(arguments: [
        "1", "-7", "1.5", "1e+20", #""text""#, "true", "false", "[1,2.0,\"x\"]",
        #"{"$date":"2016-07-15T00:00:00Z"}"#, #"{"$date":"2016-07-15T00:00:00.25Z"}"#, #"{"$bytes":"AAEC"}"#,
        #"{"$ref":"person/grace"}"#, #"{"$double":"NaN"}"#, #"{"$double":"-Infinity"}"#,
        #"{"$dict":{"$x":1}}"#, #"{"a":{"b":[true,null]}}"#,
    ])
    func aValueReadsBackAsTheSameTypedJSON(_ json: String) throws {
        try dir.succeed("set", store, "thing/1", "key", "--", json)
        #expect(try dir.succeed("get", store, "thing/1", "key").stdout == json + "\n")
    }

    /// A negative number is a VALUE without '--' (it was taken for an option, a usage error);
    /// '--' still works, and so does a negative number as a key path.
    @Test func aNegativeValueNeedsNoDashDash() throws {
        try dir.succeed("set", store, "account/1", "balance", "-25")
        #expect(try dir.succeed("get", store, "account/1", "balance").stdout == "-25\n")
        try dir.succeed("set", store, "account/1", "balance", "-2.5e3")
        #expect(try dir.succeed("get", store, "account/1", "balance").stdout == "-2500.0\n")
        try dir.succeed("set", store, "account/1", "balance", "--", "-7")
        #expect(try dir.succeed("get", store, "account/1", "balance").stdout == "-7\n")
        try dir.succeed("set", store, "account/1", "-1", "-1")
        #expect(try dir.succeed("get", store, "account/1").stdout == #"{"-1":-1,"balance":-7}"# + "\n")
        let unknown = try dir.kvstore("set", store, "account/1", "balance", "-x")
        #expect(unknown.status == 64 && unknown.stderr.hasPrefix("kvstore: "), "any other dash argument is still an option: \(unknown)")
    }

    @Test func getPrintsTheWholeRecordWithSortedKeys() throws {
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        try dir.succeed("set", store, "person/ada", "born", "1815")
        try dir.succeed("set", store, "person/ada", "address", #"{"city":"London","zip":"W1"}"#)
        let get = try dir.succeed("get", store, "person/ada")
        #expect(get.stdout == #"{"address":{"city":"London","zip":"W1"},"born":1815,"name":"Ada"}"# + "\n")
        let pretty = try dir.succeed("get", store, "person/ada", "address", "--pretty")
        #expect(pretty.stdout == "{\n  \"city\": \"London\",\n  \"zip\": \"W1\"\n}\n")
    }

    @Test func getFollowsKeyPathsThroughDictionariesReferencesAndOperators() throws {
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        try dir.succeed("set", store, "person/ada", "address", #"{"city":"London"}"#)
        try dir.succeed("set", store, "person/ada", "tags", #"["math","poetry"]"#)
        try dir.succeed("set", store, "invoice/1", "customer", #"{"$ref":"person/ada"}"#)
        #expect(try dir.succeed("get", store, "person/ada", "address.city").stdout == "\"London\"\n")
        #expect(try dir.succeed("get", store, "invoice/1", "customer.name").stdout == "\"Ada\"\n")
        #expect(try dir.succeed("get", store, "invoice/1", "customer.address.city").stdout == "\"London\"\n")
        #expect(try dir.succeed("get", store, "person/ada", "tags.@count").stdout == "2\n")
    }

    @Test func getOfAKeyWithoutValuePrintsNull() throws {
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        #expect(try dir.succeed("get", store, "person/ada", "nickname").stdout == "null\n")
        #expect(try dir.succeed("get", store, "person/ada", "address.city").stdout == "null\n")
    }

    @Test func setThroughAKeyPathChangesOnlyTheNestedValue() throws {
        try dir.succeed("set", store, "person/ada", "address", #"{"city":"London","zip":"W1"}"#)
        try dir.succeed("set", store, "person/ada", "address.city", #""Paris""#)
        #expect(try dir.succeed("get", store, "person/ada").stdout == #"{"address":{"city":"Paris","zip":"W1"}}"# + "\n")
        let last = try #require(try dir.succeed("journal", "list", store).objects().last)
        #expect(last["keyPath"] == "address.city")
        #expect(last["old"] == "London")
        #expect(last["new"] == "Paris")
    }

    @Test func settingTheStoredValueAgainJournalsNothing() throws {
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        try dir.succeed("set", store, "person/ada", "age", "36")
        let before = try dir.succeed("journal", "list", store).stdout
        try dir.succeed("set", store, "person/ada", "age", "36")
        #expect(try dir.succeed("journal", "list", store).stdout == before)
    }

    @Test func setNullRemovesANonScalarKey() throws {
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        try dir.succeed("set", store, "person/ada", "name", "null")
        #expect(try dir.succeed("get", store, "person/ada").stdout == "{}\n")
    }

    @Test func rmRemovesAKeyAndRemovingAnAbsentKeyDoesNothing() throws {
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        try dir.succeed("set", store, "person/ada", "age", "36")
        let rm = try dir.succeed("rm", store, "person/ada", "age")
        #expect(rm.stdout.isEmpty)
        #expect(try dir.succeed("get", store, "person/ada").stdout == #"{"name":"Ada"}"# + "\n")
        let journal = try dir.succeed("journal", "list", store).stdout
        try dir.succeed("rm", store, "person/ada", "age")
        try dir.succeed("rm", store, "person/ada", "address.city")
        #expect(try dir.succeed("journal", "list", store).stdout == journal)
    }

    @Test func rmRemovesANestedKey() throws {
        try dir.succeed("set", store, "person/ada", "address", #"{"city":"London","zip":"W1"}"#)
        try dir.succeed("rm", store, "person/ada", "address.zip")
        #expect(try dir.succeed("get", store, "person/ada").stdout == #"{"address":{"city":"London"}}"# + "\n")
    }

    @Test func rmDeletesTheRecordAndTheJournalKeepsItsValues() throws {
        try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
        try dir.succeed("set", store, "person/grace", "name", #""Grace""#)
        try dir.succeed("rm", store, "person/ada")
        #expect(try dir.succeed("dump", store).stdout == #"{"kind":"person","id":"grace","values":{"name":"Grace"}}"# + "\n")
        let last = try #require(try dir.succeed("journal", "list", store).objects().last)
        #expect(last["change"] == "recordDeleted")
        #expect(last["old"] == ["name": "Ada"])
    }
}

/// A store the tool wrote is a plain LMDB environment: LMDB's own utilities read it.
@Test func lmdbUtilitiesReadAStoreTheToolWrote() throws {
    let dir = try TestDirectory()
    let store = dir.path("store")
    try dir.succeed("set", store, "person/ada", "name", #""Ada""#)
    for (tool, expected) in [("/usr/bin/mdb_stat", "Status of records"), ("/usr/bin/mdb_dump", "database=journal")] {
        guard let (status, text) = try runExternalTool(tool, ["-a", store]) else { continue }  // lmdb-utils absent
        #expect(status == 0, "\(tool)")
        #expect(text.contains(expected), "\(tool): \(text.prefix(300))")
    }
}
