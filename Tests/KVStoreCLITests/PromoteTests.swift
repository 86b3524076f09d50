import Foundation
import KVStore
import Testing
import TestSupport

/// `promote`, and the refusal of local writes on a replica that it lifts.
@Suite(.tags(.subprocess), .skippedByTag) struct PromoteTests {
    let dir: TestDirectory
    let source: String
    let replica: String

    init() throws {
        dir = try TestDirectory()
        source = dir.path("source")
        replica = dir.path("replica")
        try makeSource(dir, "source")
        try dir.export(source, to: "source.stream")
        try dir.succeed("journal", "apply", replica, dir.path("source.stream"))
    }

    private var sourceID: String {
        get throws { try dir.withStore("source") { $0.id.uuidString.lowercased() } }
    }

    @Test func aReplicaRefusesSetRemoveAndLoadWithOneLine() throws {
        let refusal = "\(replica): a replica of source \(try sourceID): local writes are refused (kvstore promote \(replica) makes it writable)"
        try dir.fail("set", replica, "person/bob", "name", #""Someone else""#, with: refusal)
        try dir.fail("rm", replica, "person/bob", with: refusal)
        try dir.fail(["load", replica], input: #"{"kind":"person","id":"zed","values":{"name":"Zed"}}"# + "\n", says: refusal)
        #expect(try dir.succeed("diff", source, replica).stdout.isEmpty)
    }

    @Test func promoteMakesItWritableAndSaysSo() throws {
        let id = try sourceID
        #expect(try dir.succeed("promote", replica).stdout == #"{"promoted":true,"source":"\#(id)"}"# + "\n")
        #expect(try dir.succeed("promote", replica).stdout == #"{"promoted":false,"source":"\#(id)"}"# + "\n")
        try dir.succeed("set", replica, "person/bob", "name", #""Robert""#)
        let stat = try TypedJSON.dictionary(from: dir.succeed("stat", replica, "--format", "json").stdout)
        guard case .dictionary(let store)? = stat["store"] else { Issue.record("no store section"); return }
        #expect(store["role"] == "promoted" && store["replicaOf"] == .string(id))
        #expect(try dir.succeed("stat", replica).lines.contains("role         promoted (was a replica of \(id); takes local writes)"))
    }

    @Test func promotingAPrimaryOrNothingIsAnError() throws {
        try dir.fail("promote", source, with: "\(source): not a replica: there is nothing to promote")
        try dir.fail("promote", dir.path("missing"), with: "no store here")
        #expect(!FileManager.default.fileExists(atPath: dir.path("missing")))
    }
}
