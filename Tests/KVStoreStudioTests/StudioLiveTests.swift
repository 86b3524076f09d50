import Foundation
import KVStore
@testable import KVStoreStudio
import Testing
import TestSupport

/// The live feed: each commit reaches the event streams as one server-sent event with its entries.
@Suite(.tags(.network), .skippedByTag)
struct StudioLiveTests {
    @Test func aCommitReachesEveryStreamWithItsEntries() async throws {
        try await StudioFixture.with(fill: { try $0.insert(["name": "Ada"], as: ref("person/ada")) }) { fixture in
            let streams = [fixture.studio.live.subscribe(), fixture.studio.live.subscribe()]
            try await fixture.store.write { txn in
                try txn.setValue("Ada L.", forKey: "name", of: ref("person/ada"))
                try txn.insert(["name": "Bob"], as: ref("person/bob"))
            }
            for stream in streams {
                var iterator = stream.makeAsyncIterator()
                #expect(await iterator.next() == ": live\n\n")
                let event = try #require(await iterator.next())
                #expect(event.hasPrefix("data: ") && event.hasSuffix("\n\n"))
                let body = try TypedJSON.dictionary(from: String(event.dropFirst(6)))
                guard case .array(let entries)? = body["entries"] else { Issue.record("no entries"); return }
                let fields = entries.compactMap { if case .dictionary(let d) = $0 { d } else { nil } }
                #expect(fields.map { $0["ref"] } == [.string("person/ada"), .string("person/bob")])
                #expect(fields.first?["old"] == "Ada")
                #expect(fields.first?["new"] == "Ada L.")
                #expect(fields.first?["keyPath"] == "name")
                #expect(fields.map { $0["commit"] }.allSatisfy { $0 == fields.first?["commit"] })
            }
            let health = try await fixture.get("/api/health")
            guard case .array(let rate)? = health.body["commitsPerSecond"] else { Issue.record("no rate"); return }
            #expect(rate.count == 60)
            #expect(rate.reduce(0) { if case .int(let n) = $1 { $0 + n } else { $0 } } >= 1)
        }
    }

    @Test func stoppingEndsTheStreams() async throws {
        var stream: AsyncStream<String>?
        try await StudioFixture.with { fixture in stream = fixture.studio.live.subscribe() }
        var iterator = try #require(stream).makeAsyncIterator()
        #expect(await iterator.next() == ": live\n\n")
        #expect(await iterator.next() == nil)
    }

    @Test func listsJournalEntriesNewestFirstFiltered() async throws {
        try await StudioFixture.with(fill: { txn in
            try txn.insert(["name": "Ada", "address": .dictionary(["city": "London"])], as: ref("person/ada"))
            try txn.insert(["name": "Bob"], as: ref("person/bob"))
        }) { fixture in
            try await fixture.store.write { try $0.setValue("Paris", forKeyPath: "address.city", of: ref("person/ada")) }
            try await fixture.store.write { try $0.setValue("Bobby", forKeyPath: "name", of: ref("person/bob")) }
            let all = try await fixture.get("/api/journal", ["limit": "10"])
            guard case .array(let entries)? = all.body["entries"] else { Issue.record("no entries"); return }
            #expect(entries.count == 4)
            let byRef = try await fixture.get("/api/journal", ["ref": "person/ada", "keyPath": "address"])
            guard case .array(let filtered)? = byRef.body["entries"], case .dictionary(let only)? = filtered.first else {
                Issue.record("no entry"); return
            }
            #expect(filtered.count == 1)
            #expect(only["keyPath"] == "address.city")
            let older = try await fixture.get("/api/journal", ["limit": "1", "before": "4"])
            #expect(older.body["more"] == .bool(true))
        }
    }
}
