import Foundation
import KVStore
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    /// Values a store holds whose hub text the download must read back exactly: neither mistaken
    /// for a `$kv` envelope nor beyond what typed JSON reads.
    @Suite struct ReviewSyncValueTests {
        /// Uploads each value as a change and downloads it: each comes back exactly.
        @discardableResult
        private func roundTrip(_ values: [Value]) async throws -> HubDatabase {
            let database = try await HubDatabase.make()
            let rows = try await database.uploadEachAndDownload(values)
            #expect(rows.count == values.count)
            for row in rows {
                let sent = values[Int(row.change.originSequence) - 1]
                #expect(row.change.value == sent, "value \(row.change.originSequence)")
            }
            return database
        }

        /// A dictionary with a `$kv` key among others is written as a plain object; `jsonb` sorts
        /// keys by length, so it prints `{"$kv": "…", "name": "…"}` — the envelope's prefix and
        /// suffix. It must read back as the dictionary, not as a damaged envelope.
        @Test func dictionaryWithKVKeyAmongOthersIsNotAnEnvelope() async throws {
            try await roundTrip([
                .dictionary(["$kv": "AAAA", "name": "Ada"]),
                .dictionary(["$kv": "", "note": "x\"}"]),
                .dictionary(["$kv": "QUJD", "more": .dictionary(["$kv": "QUJD", "zzzz": "y"])]),
            ])
        }

        /// A value within the store's nesting limit whose typed JSON nests deeper than typed JSON
        /// reads (each dictionary whose only key starts with `$` is written in a `$dict` wrapper,
        /// a level more) must still come back.
        @Test func valueNestedWithinTheStoreLimitComesBack() async throws {
            let deep = (0..<300).reduce(Value.int(1)) { inner, _ in .dictionary(["$a": inner]) }
            try await roundTrip([deep])
        }

        /// At 512 typed JSON levels a value still travels as typed JSON (SQL sees it); one level
        /// more (a date at the bottom) travels in its envelope.
        @Test func theEnvelopeStartsOneLevelPastWhatTypedJSONReads() async throws {
            let wrapped = { (leaf: Value) in (0..<256).reduce(leaf) { inner, _ in Value.dictionary(["$a": inner]) } }
            let database = try await roundTrip([wrapped(.int(1)), wrapped(.date(Date(timeIntervalSinceReferenceDate: 0)))])
            let envelopes = try await database.admin("SELECT origin_seq FROM \(database.schema).changes WHERE value ? '$kv'")
            #expect(envelopes == "2\n")
        }
    }
}
