import Foundation
import KVStore
@testable import KVStoreStudio
import Testing
import TestSupport

/// Browsing: kinds with counts, pages through range reads, sorting, queries, the record view.
@Suite(.tags(.network), .skippedByTag)
struct StudioBrowseTests {
    /// 250 people p000…p249, age = n % 50, and 3 invoices referencing p001 through an index.
    static let fill: @Sendable (WriteTransaction) throws -> Void = { txn in
        for n in 0..<250 {
            try txn.insert(["name": .string("Person \(n)"), "age": .int(Int64(n % 50))], as: ref(String(format: "person/p%03d", n)))
        }
        try txn.declare(try {
            var invoice = try Kind("invoice")
            invoice.indexes = [try KindIndex(["customer"])]
            return invoice
        }())
        for n in 0..<3 { try txn.insert(["customer": .reference(ref("person/p001")), "amount": .int(Int64(n))], as: ref("invoice/\(n)")) }
    }

    @Test func listsKindsWithCounts() async throws {
        try await StudioFixture.with(fill: Self.fill) { fixture in
            let answer = try await fixture.get("/api/kinds")
            guard case .array(let kinds)? = answer.body["kinds"] else { Issue.record("no kinds"); return }
            let counts = kinds.compactMap { kind -> (String, Value?)? in
                guard case .dictionary(let fields) = kind, case .string(let name)? = fields["kind"] else { return nil }
                return (name, fields["count"])
            }
            #expect(counts.map(\.0) == ["invoice", "person"])
            #expect(counts.map(\.1) == [.int(3), .int(250)])
        }
    }

    @Test func pagesThroughIDRanges() async throws {
        try await StudioFixture.with(fill: Self.fill) { fixture in
            var seen: [String] = []
            var after: String?
            for (expected, more) in [(100, true), (100, true), (50, false)] {
                let page = try await fixture.get("/api/records", ["kind": "person", "limit": "100", "after": after ?? ""])
                let ids = page.body["rows"]?.rows.map(\.id) ?? []
                #expect(ids.count == expected)
                #expect(page.body["more"] == .bool(more))
                #expect(page.body["total"] == .int(250))
                seen += ids
                after = ids.last
            }
            #expect(seen == (0..<250).map { String(format: "p%03d", $0) })
        }
    }

    @Test func sortsByAColumnAndPagesWithAnOffset() async throws {
        try await StudioFixture.with(fill: Self.fill) { fixture in
            let first = try await fixture.get("/api/records", ["kind": "person", "sort": "age:desc", "limit": "10"])
            let rows = first.body["rows"]?.rows ?? []
            #expect(rows.map(\.values["age"]) == Array(repeating: .int(49), count: 5) + Array(repeating: .int(48), count: 5))
            #expect(rows.prefix(5).map(\.id) == ["p049", "p099", "p149", "p199", "p249"])  // ties by id
            let second = try await fixture.get("/api/records", ["kind": "person", "sort": "age:desc", "limit": "10", "offset": "10"])
            #expect(second.body["rows"]?.rows.first?.values["age"] == .int(47))
        }
    }

    @Test func runsAQueryInThePredicateLanguage() async throws {
        try await StudioFixture.with(fill: Self.fill) { fixture in
            let answer = try await fixture.get("/api/records", ["kind": "person", "where": "age >= 48 AND name ENDSWITH '49'", "limit": "100"])
            #expect(answer.status == 200)
            #expect(answer.body["rows"]?.rows.map(\.id) == ["p049", "p149", "p249"])
            #expect(answer.body["total"] == .null)
            #expect(answer.body["more"] == .bool(false))
        }
    }

    @Test func namesTheColumnOfAPredicateError() async throws {
        try await StudioFixture.with(fill: Self.fill) { fixture in
            let text = "age >= 30 AND name ==="
            var expected: KeyPathPredicateError?
            do { _ = try KeyPathPredicate(text) } catch let error as KeyPathPredicateError { expected = error }
            let error = try #require(expected)
            let answer = try await fixture.get("/api/records", ["kind": "person", "where": text])
            #expect(answer.status == 400)
            #expect(answer.error == "invalid predicate: \(error)")
            #expect(answer.body["line"] == .int(Int64(try #require(error.line))))
            #expect(answer.body["column"] == .int(Int64(try #require(error.column))))
            #expect(answer.body["rows"] == nil)
        }
    }

    @Test func refusesBadPageParametersInOneLine() async throws {
        try await StudioFixture.with(fill: Self.fill) { fixture in
            for parameters in [["kind": "person", "limit": "-1"], ["kind": "bad kind/"], ["kind": "person", "sort": "@count:sideways"], [:]] {
                let answer = try await fixture.get("/api/records", parameters)
                #expect(answer.status == 400, "\(parameters)")
                #expect(answer.error?.contains("\n") == false, "\(parameters)")
            }
        }
    }

    @Test func showsARecordWithTheRecordsReferencingItThroughAnIndex() async throws {
        try await StudioFixture.with(fill: Self.fill) { fixture in
            let invoice = try await fixture.get("/api/record", ["ref": "invoice/1"])
            guard case .dictionary(let values)? = invoice.body["values"] else { Issue.record("no values"); return }
            #expect(values["customer"] == .reference(ref("person/p001")))
            let person = try await fixture.get("/api/record", ["ref": "person/p001"])
            guard case .array(let groups)? = person.body["referencedBy"], case .dictionary(let group)? = groups.first else {
                Issue.record("no referencing records"); return
            }
            #expect(groups.count == 1)
            #expect(group["kind"] == .string("invoice"))
            #expect(group["keyPath"] == .string("customer"))
            #expect(group["ids"]?.strings == ["0", "1", "2"])
            let missing = try await fixture.get("/api/record", ["ref": "person/nobody"])
            #expect(missing.status == 404)
            #expect(missing.error == "person/nobody: no such record")
        }
    }
}
