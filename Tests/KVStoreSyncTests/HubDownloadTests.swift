import Foundation
import KVStore
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    @Suite struct DownloadTests {
        /// Pages of other stores' changes, in order, each starting where the last one ended.
        @Test func pagesFollowTheCursor() async throws {
            let database = try await HubDatabase.make()
            let (a, b) = (UUID(), UUID())
            let pages = try await database.withClient { hub in
                try await hub.upload(try sampleChanges(5, from: a), from: a)
                try await hub.upload(try sampleChanges(3, from: b, kind: "note"), from: b)
                var pages: [HubPage] = []
                var cursor = HubCursor.start
                repeat {
                    pages.append(try await hub.download(after: cursor, excluding: b, limit: 2))
                    cursor = pages.last!.cursor
                } while !pages.last!.isCaughtUp
                pages.append(try await hub.download(after: cursor, excluding: b, limit: 2))
                return pages
            }
            #expect(pages.map(\.rows.count) == [2, 2, 1, 0])
            #expect(pages.map(\.isCaughtUp) == [false, false, true, true])
            let rows = pages.flatMap(\.rows)
            #expect(rows.map(\.change) == (try sampleChanges(5, from: a)))
            #expect(rows.map(\.cursor) == rows.map(\.cursor).sorted())
            #expect(pages[0].cursor == rows[1].cursor)
            #expect(pages[2].cursor > rows[4].cursor)  // caught up: past the store's own rows too
            #expect(pages[3].cursor >= pages[2].cursor)
        }

        @Test func onlyTheKindsAskedForAreRead() async throws {
            let database = try await HubDatabase.make()
            let (a, b) = (UUID(), UUID())
            let page = try await database.withClient { hub in
                try await hub.upload(try sampleChanges(2, from: a, kind: "person") + sampleChanges(2, from: a, first: 3, kind: "invoice")
                                     + sampleChanges(2, from: a, first: 5, kind: "note"), from: a)
                return try await hub.download(after: .start, excluding: b, kinds: ["person", "note"])
            }
            #expect(page.rows.map(\.change.record.kind) == ["person", "person", "note", "note"])
        }

        /// Every kind of value comes back from jsonb as it went in, and SQL can read it.
        @Test func valuesComeBackAsTheyWentIn() async throws {
            let database = try await HubDatabase.make()
            let (a, b) = (UUID(), UUID())
            let values: [Value] = [
                .null, .bool(true), .int(-42), .int(Int64.max), .double(1.0), .double(0.1), .double(1e-7), .double(9e15), .double(.nan),
                .double(-.infinity), .string("café 🎉 \"q\" \\ \n"), .bytes(Data([0, 1, 255])), .date(Date(timeIntervalSince1970: 1.25)),
                .reference(try RecordRef("person/ada")), .array([1, 1.5, "x", [:]]),
                .dictionary(["$x": 1, "city": "Paris", "nested": ["b": 2, "a": [true]]]),
            ]
            let page = try await database.withClient { hub in
                try await hub.upload(try sampleChanges(values.count, from: a) { values[$0] }, from: a)
                return try await hub.download(after: .start, excluding: b)
            }
            #expect(page.rows.count == values.count)
            for (row, value) in zip(page.rows, values) {
                #expect(TypedJSON.string(from: row.change.value ?? .null) == TypedJSON.string(from: value))
            }
            #expect(try await database.admin("SELECT value->>'city' FROM \(database.schema).changes WHERE origin_seq = 16") == "Paris\n")
        }

        /// A store's own changes are left out, and the cursor moves past them.
        @Test func aStoreSkipsItsOwnChanges() async throws {
            let database = try await HubDatabase.make()
            let a = UUID()
            let (page, last) = try await database.withClient { hub in
                try await hub.upload(try sampleChanges(4, from: a), from: a)
                let page = try await hub.download(after: .start, excluding: a, limit: 2)
                let last = try await database.admin("SELECT txid, id FROM \(database.schema).changes ORDER BY txid, id DESC LIMIT 1")
                return (page, last)
            }
            #expect(page.rows.isEmpty && page.isCaughtUp)
            let parts = last.trimmingCharacters(in: .newlines).split(separator: "|")
            #expect(page.cursor > HubCursor(transaction: UInt64(parts[0])!, id: Int64(parts[1])!))
        }
    }
}
