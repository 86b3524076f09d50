import Foundation
import Testing
import TestSupport
@testable import KVStore

/// The async write's pipeline (`AsyncCommitQueue`): writes queued while a group commits make the
/// next group, in queue order; each keeps its own outcome; a cancelled one does not run; under
/// full durability a caller resumes only after its group's sync; closing while writes are in
/// flight loses none of them.
@Suite struct AsyncWritePipelineTests {
    /// The ids of the `item` records (a synchronous read).
    private func itemIDs(_ store: Store) throws -> [String] {
        try store.read { try $0.refs(ofKind: "item").map(\.id) }
    }

    /// Queues `count` writes in order behind a held write, write `i` inserting `item/i` and
    /// setting its key `i` — each queued before the next is started — and returns their tasks.
    private func queueWrites(
        _ store: Store, count: Int, _ body: @escaping @Sendable (Int, WriteTransaction) throws -> Void = { i, txn in
            try txn.insert(["i": .int(Int64(i))], as: ref("item/\(i)"))
            try txn.setValue(.int(Int64(i) * 10 + 1), forKey: "i", of: ref("item/\(i)"))
        }
    ) async -> [Task<UInt64?, any Error>] {
        var tasks: [Task<UInt64?, any Error>] = []
        for i in 0..<count {
            tasks.append(Task { try await store.write { txn in
                try body(i, txn)
                return txn.commitID
            } })
            // The first is taken by the commit thread, which waits for the held write's turn.
            await eventually { i == 0 ? store.environment.commitQueue.queued == 1 : store.threads.commits.queuedCount == i }
        }
        return tasks
    }

    @Test func overlappingWritesLandInQueueOrderWithTheirJournalEntries() async throws {
        let t = try TemporaryStore(options: Store.Options())
        let store = t.store
        let release = try store.holdWrites()
        let tasks = await queueWrites(store, count: 64)
        release()
        var commits: [UInt64] = []
        for task in tasks { commits.append(try #require(try await task.value)) }
        #expect(commits == commits.sorted() && Set(commits).count == 64)
        // The first write alone, then the 63 queued meanwhile as one group.
        #expect(store.environment.commitQueue.statistics.largestGroup == 63)
        let entries = try store.journalEntries().filter { $0.ref.kind == "item" }
        try #require(entries.count == 128)
        for (i, pair) in stride(from: 0, to: entries.count, by: 2).map({ entries[$0 ..< $0 + 2] }).enumerated() {
            #expect(pair.allSatisfy { $0.commitID == commits[i] && $0.ref.id == "\(i)" })
        }
        #expect(try store.value(forKey: "i", of: ref("item/63")) == .int(631))
    }

    @Test func aThrowingBodyFailsOnlyItsOwnWrite() async throws {
        struct Refused: Error {}
        let t = try TemporaryStore(options: Store.Options())
        let store = t.store
        let release = try store.holdWrites()
        let tasks = await queueWrites(store, count: 4) { i, txn in
            try txn.insert(["i": .int(Int64(i))], as: ref("item/\(i)"))
            if i == 2 { throw Refused() }
        }
        release()
        for (i, task) in tasks.enumerated() {
            if i == 2 {
                await #expect(throws: Refused.self) { try await task.value }
            } else {
                #expect(try await task.value != nil)
            }
        }
        #expect(try itemIDs(store) == ["0", "1", "3"])
        #expect(try store.journalEntries().filter { $0.ref.id == "2" }.isEmpty)
    }

    @Test func aQueuedWriteCancelledBeforeItsGroupRunsNothing() async throws {
        let t = try TemporaryStore(options: Store.Options())
        let store = t.store
        let release = try store.holdWrites()
        let tasks = await queueWrites(store, count: 3)
        tasks[2].cancel()
        await #expect(throws: CancellationError.self) { try await tasks[2].value }
        release()
        for task in tasks.prefix(2) { #expect(try await task.value != nil) }
        try await store.write { _ in }  // after the cancelled write's group
        #expect(try itemIDs(store) == ["0", "1"])
    }

    /// Under full durability a group's meta page is synced after its commit, outside the write
    /// lock, before its callers resume: at most one sync per group, at least one for them all.
    @Test func fullDurabilityResumesAfterTheGroupsSync() async throws {
        let t = try TemporaryStore(options: Store.Options())
        let store = t.store
        let before = store.environment.syncCounts.committed
        try await store.write { txn in try txn.insert([:], as: ref("item/a")) }
        let release = try store.holdWrites()
        let tasks = await queueWrites(store, count: 8)
        release()
        for task in tasks { _ = try await task.value }
        let syncs = store.environment.syncCounts.committed - before
        #expect(syncs >= 2 && syncs <= 9, "one sync for the first write, one or more for the eight queued")
        #expect(try itemIDs(store).count == 9)
    }

    /// The last reference to the store goes while writes are in flight: every write commits, and
    /// the environment closes once they are done (a reopening with another durability, which an
    /// open environment refuses, succeeds).
    @Test func droppingTheStoreWhileWritesAreInFlightLosesNone() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store")
        var tasks: [Task<Void, any Error>] = []
        do {
            let store = try Store(path: path, options: Store.Options())
            for i in 0..<50 {
                tasks.append(Task { try await store.write { txn in try txn.insert(["i": .int(Int64(i))], as: ref("item/\(i)")) } })
            }
        }
        for task in tasks { try await task.value }
        tasks = []
        var options = Store.Options()
        options.durability = .noSync
        var reopened: Store?
        await eventually { reopened = try? Store(path: path, options: options); return reopened != nil }
        #expect(try reopened?.count(ofKind: "item") == 50)
    }

    @Test func aReadOnlyStoreRefusesAnAsyncWriteBeforeQueueing() async throws {
        let t = try TemporaryStore()
        var options = Store.Options.testing
        options.readOnly = true
        let readOnly = try Store(path: t.path, options: options)
        let ran = Flag()
        await #expect { try await readOnly.write { _ in ran.set() } } throws: { ($0 as? StoreError)?.code == .readOnly }
        #expect(!ran.isSet && t.store.threads.commits.queuedCount == 0)
    }
}
