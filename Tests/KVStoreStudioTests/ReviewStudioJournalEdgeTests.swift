import Foundation
import KVStore
@testable import KVStoreStudio
import Testing
import TestSupport

/// Review: the journal's edges — an emptied journal (its last sequence stays), sequence 0.
@Suite(.tags(.network), .skippedByTag)
struct ReviewStudioJournalEdgeTests {
    /// Truncating before last + 1 empties the journal but keeps its last sequence: the entries after
    /// an earlier sequence are gone, so time travel there cannot be answered (it answered with
    /// today's records, labelled as of the old sequence).
    @Test func refusesTimeTravelIntoAnEmptiedJournal() async throws {
        try await StudioFixture.with(fill: { try $0.insert(["n": 1], as: ref("item/1")) }) { fixture in
            try await fixture.store.write { try $0.setValue(2, forKeyPath: "n", of: ref("item/1")) }
            let last = try await fixture.store.read { try $0.lastSequence() }
            try fixture.store.truncateJournal(before: last + 1)
            let page = try await fixture.get("/api/records", ["kind": "item", "asOf": "1"])
            #expect(page.status == 400, "\(page.body)")
            let view = try await fixture.get("/api/record", ["ref": "item/1", "asOf": "1"])
            #expect(view.status == 400, "\(view.body)")
            #expect(try await fixture.get("/api/records", ["kind": "item", "asOf": "\(last)"]).status == 200)
        }
    }

    /// Nothing comes before sequence 0 (`before=0` wrapped around to the journal's end).
    @Test func hasNoEntriesBeforeSequenceZero() async throws {
        try await StudioFixture.with(fill: { try $0.insert(["n": 1], as: ref("item/1")) }) { fixture in
            let page = try await fixture.get("/api/journal", ["before": "0"])
            #expect(page.status == 200)
            #expect(page.body["entries"] == .array([]))
            #expect(page.body["more"] == .bool(false))
        }
    }
}
