import Foundation
import KVStore
@testable import KVStoreStudio
import Testing
import TestSupport

/// Time travel: the store as of a sequence, computed from the current state and the old values
/// of later entries, agrees with a replay of the journal up to that sequence.
@Suite(.tags(.network), .skippedByTag)
struct StudioTimeTravelTests {
    /// A history of settings, nested settings, array changes, deletions and insertions.
    static let history: [@Sendable (WriteTransaction) throws -> Void] = [
        { try $0.insert(["name": "Ada", "tags": .array(["a", "b"]), "address": .dictionary(["city": "London"])], as: ref("person/ada")) },
        { try $0.insert(["name": "Bob", "age": 40], as: ref("person/bob")) },
        { try $0.setValue("Ada Lovelace", forKeyPath: "name", of: ref("person/ada")) },
        { try $0.setValue("Paris", forKeyPath: "address.city", of: ref("person/ada")) },
        { try $0.mutableArray(forKey: "tags", of: ref("person/ada")).insert("c", at: 1) },
        { txn in
            try txn.mutableArray(forKey: "tags", of: ref("person/ada")).remove(at: 0)
            try txn.setValue(41, forKeyPath: "age", of: ref("person/bob"))
        },
        { try $0.delete(ref("person/bob")) },
        { try $0.insert(["name": "Cy"], as: ref("person/cy")) },
        { try $0.mutableArray(forKey: "tags", of: ref("person/ada")).replace(at: [0], with: ["z"]) },
        { try $0.removeValue(forKeyPath: "address.city", of: ref("person/ada")) },
        { try $0.insert(["name": "Bob again"], as: ref("person/bob")) },
    ]

    @Test func everySequenceMatchesAReplay() async throws {
        try await StudioFixture.with { fixture in
            for step in Self.history { try await fixture.store.write(step) }
            let last = try await fixture.store.read { try $0.lastSequence() }
            for sequence in 0...last {
                let replay = try Store(path: fixture.directory.path("replay-\(sequence)"))
                try fixture.store.replayJournal(into: replay, until: .sequence(sequence))
                let expected = try await replay.read { try $0.records(ofKind: "person", from: nil, to: nil) }
                let page = try await fixture.get("/api/records", ["kind": "person", "asOf": "\(sequence)"])
                let rows = page.body["rows"]?.rows ?? []
                #expect(rows.map(\.id) == expected.map(\.ref.id), "as of \(sequence)")
                #expect(rows.map(\.values) == expected.map(\.values), "as of \(sequence)")
                for record in expected {
                    let view = try await fixture.get("/api/record", ["ref": record.ref.description, "asOf": "\(sequence)"])
                    #expect(view.body["values"] == .dictionary(record.values), "\(record.ref) as of \(sequence)")
                }
            }
        }
    }

    @Test func marksWhatChangedSince() async throws {
        try await StudioFixture.with { fixture in
            for step in Self.history.prefix(2) { try await fixture.store.write(step) }
            let then = try await fixture.store.read { try $0.lastSequence() }
            for step in Self.history.dropFirst(2).prefix(5) { try await fixture.store.write(step) }  // through bob's deletion
            let page = try await fixture.get("/api/records", ["kind": "person", "asOf": "\(then)"])
            #expect(page.body["rows"]?.rows.map(\.id) == ["ada", "bob"])
            #expect(page.body["changed"]?.strings == ["ada", "bob"])
            #expect(page.body["deletedSince"]?.strings == ["bob"])
            let view = try await fixture.get("/api/record", ["ref": "person/ada", "asOf": "\(then)"])
            #expect(view.body["changedKeys"]?.strings == ["address", "name", "tags"])
            #expect(view.body["exists"] == .bool(true))
        }
    }

    @Test func pagesAsOfASequence() async throws {
        try await StudioFixture.with(fill: { txn in
            for n in 0..<30 { try txn.insert(["n": .int(Int64(n))], as: ref(String(format: "item/%02d", n))) }
        }) { fixture in
            let then = try await fixture.store.read { try $0.lastSequence() }
            try await fixture.store.write { txn in
                for n in stride(from: 0, to: 30, by: 3) { try txn.delete(ref(String(format: "item/%02d", n))) }
                for n in 30..<40 { try txn.insert(["n": .int(Int64(n))], as: ref("item/\(n)")) }
            }
            var ids: [String] = []
            var after = ""
            while true {
                let page = try await fixture.get("/api/records", ["kind": "item", "asOf": "\(then)", "limit": "7", "after": after])
                let rows = page.body["rows"]?.rows.map(\.id) ?? []
                ids += rows
                guard page.body["more"] == .bool(true), let last = rows.last else { break }
                after = last
            }
            #expect(ids == (0..<30).map { String(format: "%02d", $0) })
        }
    }

    @Test func refusesASequenceOutsideTheJournal() async throws {
        try await StudioFixture.with(fill: { try $0.insert(["n": 1], as: ref("item/1")) }) { fixture in
            let future = try await fixture.get("/api/records", ["kind": "item", "asOf": "99"])
            #expect(future.status == 400)
            #expect(future.error == "sequence 99 is after the journal's last, 1")
            let sorted = try await fixture.get("/api/records", ["kind": "item", "asOf": "0", "sort": "n"])
            #expect(sorted.status == 400)
        }
    }
}
