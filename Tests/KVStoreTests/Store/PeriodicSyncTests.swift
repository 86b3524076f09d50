import Foundation
import Testing
import TestSupport
@testable import KVStore
import LMDB

/// `Durability.periodicSync`: commits do not sync; the store syncs in the background when it
/// committed since the last sync (never when idle), on `sync()`, and when it closes.
@Suite struct PeriodicSyncTests {
    private func options(interval: Duration = .milliseconds(20)) -> Store.Options {
        var options = Store.Options()
        options.durability = .periodicSync
        options.syncInterval = interval
        return options
    }

    @Test func commitsDoNotSyncAndTheBackgroundSyncFollowsThem() throws {
        let t = try TemporaryStore(options: options())
        let environment = t.store.environment
        Thread.sleep(forTimeInterval: 0.1)  // a sync of what opening committed, if anything
        let settled = environment.syncCounts.periodic
        Thread.sleep(forTimeInterval: 0.15)  // several intervals, nothing committed: no sync
        #expect(environment.syncCounts.periodic == settled)
        for i in 0..<20 { try t.store.insert(["i": .int(Int64(i))], as: ref("item/\(i)")) }
        #expect(environment.syncCounts.committed == 0)
        #expect(waitUntil { environment.syncCounts.periodic > settled })
        #expect(!environment.syncState.isBehind(environment.commitsMade))
    }

    @Test func syncOnDemandCoversEveryCommitThatReturned() throws {
        let t = try TemporaryStore(options: options(interval: .seconds(3600)))
        let environment = t.store.environment
        try t.store.insert([:], as: ref("item/a"))
        #expect(environment.syncState.isBehind(environment.commitsMade))
        try t.store.sync()
        #expect(environment.syncCounts.requested == 1)
        #expect(!environment.syncState.isBehind(environment.commitsMade))
    }

    @Test func closingSyncsWhatWasCommittedSinceTheLastSync() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        let before = Environment.closingSyncs.load(ordering: .relaxed)
        do {
            let store = try Store(path: path, options: options(interval: .seconds(3600)))
            try store.insert([:], as: ref("item/a"))
        }
        #expect(Environment.closingSyncs.load(ordering: .relaxed) > before)
        let reopened = try Store(path: path, options: options())
        #expect(try reopened.record(ref("item/a")) != nil)
    }

    /// The other durabilities start no background sync; a `.full` commit's meta page is synced
    /// once, after the commit (outside the write lock).
    @Test func fullDurabilitySyncsEachCommitAndNothingInTheBackground() throws {
        let t = try TemporaryStore(options: Store.Options())
        let environment = t.store.environment
        let before = environment.syncCounts.committed
        try t.store.insert([:], as: ref("item/a"))
        #expect(environment.syncCounts.committed == before + 1)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(environment.syncCounts.periodic == 0)
    }
}
