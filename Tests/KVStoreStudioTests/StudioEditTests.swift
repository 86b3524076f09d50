import Foundation
import KVStore
@testable import KVStoreStudio
import Testing
import TestSupport

/// Edits through the API go through the store's write path; read-only studios and bad input
/// change nothing.
@Suite(.tags(.network), .skippedByTag)
struct StudioEditTests {
    static let fill: @Sendable (WriteTransaction) throws -> Void = { txn in
        try txn.declare(try Kind("account", keys: ["owner": .string, "balance": .int]))
        try txn.insert(["owner": "Ada", "balance": 10], as: ref("account/1"))
        try txn.insert(["name": "Ada", "address": .dictionary(["city": "London"])], as: ref("person/ada"))
    }

    @Test func setsRemovesInsertsAndDeletes() async throws {
        try await StudioFixture.with(fill: Self.fill) { fixture in
            let store = fixture.store
            #expect(try await fixture.post("/api/set", ["ref": "person/ada", "keyPath": "address.city", "value": "Paris"]).status == 200)
            #expect(try await store.read { try $0.value(forKeyPath: "address.city", of: ref("person/ada")) } == "Paris")
            #expect(try await fixture.post("/api/set", ["ref": "person/ada", "keyPath": "born", "value": .date(Date(timeIntervalSince1970: 0))]).status == 200)
            #expect(try await store.read { try $0.value(forKey: "born", of: ref("person/ada")) } == .date(Date(timeIntervalSince1970: 0)))
            #expect(try await fixture.post("/api/remove", ["ref": "person/ada", "keyPath": "born"]).status == 200)
            #expect(try await store.read { try $0.record(ref("person/ada"))?["born"] } == nil)
            let inserted = try await fixture.post("/api/insert", ["ref": "person/bob", "values": .dictionary(["friend": .reference(ref("person/ada"))])])
            #expect(inserted.status == 200)
            #expect(inserted.body["sequence"] == .int(Int64(try await store.read { try $0.lastSequence() })))
            #expect(try await store.read { try $0.record(ref("person/bob")) } == ["friend": .reference(ref("person/ada"))])
            #expect(try await fixture.post("/api/remove", ["ref": "person/bob"]).status == 200)
            #expect(try await store.read { try $0.contains(ref("person/bob")) } == false)
        }
    }

    @Test func revertsACommit() async throws {
        try await StudioFixture.with(fill: Self.fill) { fixture in
            try await fixture.store.write { try $0.setValue(99, forKey: "balance", of: ref("account/1")) }
            let commit = try await fixture.store.read { try $0.journalEntries(from: try $0.lastSequence()).first!.commitID }
            let answer = try await fixture.post("/api/revert", ["commit": .int(Int64(commit))])
            #expect(answer.status == 200)
            #expect(answer.body["reverted"] == .int(Int64(commit)))
            #expect(try await fixture.store.read { try $0.value(forKey: "balance", of: ref("account/1")) } == 10)
        }
    }

    @Test func keepsTheKindRulesOfTheCatalog() async throws {
        try await StudioFixture.with(fill: Self.fill) { fixture in
            let before = try await fixture.store.read { try $0.lastSequence() }
            let undeclared = try await fixture.post("/api/set", ["ref": "account/1", "keyPath": "nickname", "value": "x"])
            #expect(undeclared.status == 400)
            #expect(undeclared.error?.contains("nickname") == true)
            let mistyped = try await fixture.post("/api/set", ["ref": "account/1", "keyPath": "balance", "value": "ten"])
            #expect(mistyped.status == 400)
            #expect(mistyped.error?.contains("balance") == true)
            #expect(try await fixture.store.read { try $0.lastSequence() } == before)
        }
    }

    @Test func refusesBadInputWithOneErrorAndNoChange() async throws {
        try await StudioFixture.with(fill: Self.fill) { fixture in
            let before = try await fixture.store.read { try $0.lastSequence() }
            let cases: [(String, String, Int)] = [
                ("/api/set", "not json", 400),
                ("/api/set", #"{"ref":"person/ada","keyPath":"name"}"#, 400),
                ("/api/set", #"{"ref":"person","keyPath":"name","value":1}"#, 400),
                ("/api/set", #"{"ref":"person/ada","keyPath":"tags.@count","value":1}"#, 400),
                ("/api/set", #"{"ref":"person/nobody","keyPath":"name","value":"x"}"#, 404),
                ("/api/set", #"{"ref":"person/ada","keyPath":"address.city.zip","value":"x"}"#, 400),
                ("/api/insert", #"{"ref":"person/ada","values":{"name":"again"}}"#, 400),
                ("/api/insert", #"{"ref":"person/new","values":[1]}"#, 400),
                ("/api/remove", #"{"ref":"person/nobody"}"#, 400),
                ("/api/revert", #"{"commit":"x"}"#, 400),
                ("/api/revert", #"{"commit":999}"#, 400),
            ]
            for (path, body, status) in cases {
                let answer = try await fixture.post(path, body)
                #expect(answer.status == status, "\(path) \(body): \(answer.error ?? "")")
                let error = try #require(answer.error, "\(path) \(body)")
                #expect(!error.isEmpty && !error.contains("\n"), "\(path) \(body)")
            }
            #expect(try await fixture.store.read { try $0.lastSequence() } == before)
            #expect(try await fixture.store.read { try $0.record(ref("person/ada")) } == ["name": "Ada", "address": .dictionary(["city": "London"])])
        }
    }

    @Test func aReadOnlyStudioRefusesEveryEdit() async throws {
        try await StudioFixture.with(readOnly: true, fill: Self.fill) { fixture in
            let before = try await fixture.store.read { try $0.lastSequence() }
            for (path, body) in [
                ("/api/set", #"{"ref":"person/ada","keyPath":"name","value":"x"}"#), ("/api/remove", #"{"ref":"person/ada"}"#),
                ("/api/insert", #"{"ref":"person/x","values":{}}"#), ("/api/revert", #"{"commit":1}"#),
            ] {
                let answer = try await fixture.post(path, body)
                #expect(answer.status == 403, "\(path)")
                #expect(answer.error == "the studio is read-only (--read-only)")
            }
            #expect(try await fixture.store.read { try $0.lastSequence() } == before)
            let kinds = try await fixture.get("/api/kinds")
            #expect(kinds.body["readOnly"] == .bool(true))
        }
    }
}
