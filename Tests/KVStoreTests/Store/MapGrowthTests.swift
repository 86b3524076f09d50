import Foundation
import Testing
@testable import KVStore

@Suite struct MapGrowthTests {
    /// Starting from a 64 KiB map, 50 MB of records and their journal entries go in: the map grows
    /// (at a put or at commit) and the writes are re-run, invisibly to the caller.
    @Test func fiftyMegabytesIntoATinyMap() throws {
        var options = Store.Options.testing
        options.mapSize = 64 << 10
        let t = try TemporaryStore(options: options)
        let payload = Value.bytes(Data(repeating: 0xC3, count: 10_000))
        for batch in 0..<25 {
            try t.store.write { txn in
                for i in 0..<200 { try txn.insert(["blob": payload, "i": .int(Int64(i))], as: ref("blob/\(batch)-\(i)")) }
            }
        }
        #expect(try t.store.count(ofKind: "blob") == 5000)
        #expect(try t.store.read { try $0.lastSequence() } == 5000)
        #expect(t.store.environment.currentMapSize > 50_000_000)
        #expect(try t.store.value(forKey: "i", of: ref("blob/24-199")) == 199)
        // Entries are contiguous: no write was journaled twice by a re-run.
        let commits = try t.store.journalEntries().map(\.commitID)
        #expect(commits == (1...25).flatMap { Array(repeating: UInt64($0), count: 200) })
    }
}
