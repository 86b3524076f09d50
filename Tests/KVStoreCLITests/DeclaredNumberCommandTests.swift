import Foundation
import KVStore
import Testing
import TestSupport

/// `load` and `set` keep a kind's declared number types.
@Suite(.tags(.subprocess), .skippedByTag) struct DeclaredNumberCommandTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        try dir.succeed("set", store, "measure/0", "score", "1.5")
        try dir.succeed("kind", store, "measure", "--closed", "--key", "score:double", "--key", "count:int")
    }

    /// `1.0` comes back from jq as `1`: a declared double keeps it a double, on load and on set.
    @Test func anIntForADeclaredDoubleLoadsAndSetsAsADouble() throws {
        let load = try dir.kvstore(["load", store, "-"], input: #"{"kind":"measure","id":"1","values":{"score":1,"count":2.0}}"# + "\n")
        #expect(load.status == 0, "\(load)")
        #expect(try dir.succeed("get", store, "measure/1").stdout == #"{"count":2,"score":1.0}"# + "\n")
        try dir.succeed("set", store, "measure/1", "score", "7")
        #expect(try dir.succeed("get", store, "measure/1", "score").stdout == "7.0\n")
        try dir.fail(["set", store, "measure/1", "count", "2.5"], says: "kvstore: measure/1: key 'count' is declared int, cannot set a double")
    }
}
