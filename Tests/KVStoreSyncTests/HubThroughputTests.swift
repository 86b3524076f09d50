import Foundation
import KVStore
import KVStoreSync
import Testing
import TestSupport

extension HubTests {
    @Suite struct ThroughputTests {
        /// Many changes up in batches and down in pages, all arriving once and in order; prints
        /// the rates (`KVSTORE_SYNC_THROUGHPUT_CHANGES` sets how many; 5,000 by default, in
        /// batches of 1,000 — a tenth of the count up to 5,000).
        @Test func manyChangesGoUpAndComeDownInOrder() async throws {
            let count = Int(ProcessInfo.processInfo.environment["KVSTORE_SYNC_THROUGHPUT_CHANGES"] ?? "") ?? 5_000
            let batch = min(5_000, max(1, count / 10))
            let database = try await HubDatabase.make()
            let (writer, reader) = (UUID(), UUID())
            let changes = try sampleChanges(count, from: writer) { .dictionary(["city": "Paris", "n": .int(Int64($0)), "tags": ["a", "b"]]) }
            let (uploaded, downloaded, upTime, downTime) = try await database.withClient { hub in
                let clock = ContinuousClock()
                var uploaded = 0
                let upTime = try await clock.measure {
                    for start in stride(from: 0, to: count, by: batch) {
                        uploaded += try await hub.upload(Array(changes[start..<min(count, start + batch)]), from: writer).newChanges
                    }
                }
                var downloaded: [HubRow] = []
                let downTime = try await clock.measure {
                    var cursor = HubCursor.start
                    var page: HubPage
                    repeat {
                        page = try await hub.download(after: cursor, excluding: reader, limit: batch)
                        downloaded += page.rows
                        cursor = page.cursor
                    } while !page.isCaughtUp
                }
                return (uploaded, downloaded, upTime, downTime)
            }
            #expect(uploaded == count)
            #expect(downloaded.map(\.change) == changes)
            func rate(_ time: Duration) -> Int { Int(Double(count) / (Double(time.components.attoseconds) / 1e18 + Double(time.components.seconds))) }
            print("hub throughput, \(count) changes in batches of \(batch): upload \(rate(upTime))/s, download \(rate(downTime))/s")
        }
    }
}
