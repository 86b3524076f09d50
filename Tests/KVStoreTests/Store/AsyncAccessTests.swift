import Foundation
import Testing
import TestSupport
@testable import KVStore

/// `try await store.read { }` / `try await store.write { }`: the closures run on the store's
/// threads, never on the caller's actor; cancellation before the closure's turn runs nothing; the
/// writes still commit in groups.
@Suite struct AsyncAccessTests {
    /// From the main actor, 200 writes and 200 reads: no closure runs on the main actor's
    /// executor (the main queue, marked here), and the caller is back on the main actor after each.
    @MainActor @Test func closuresCalledFromTheMainActorNeverRunOnIt() async throws {
        let mainQueue = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: mainQueue, value: true)
        defer { DispatchQueue.main.setSpecific(key: mainQueue, value: nil) }
        #expect(DispatchQueue.getSpecific(key: mainQueue) == true, "the main actor runs on the main queue")
        let t = try TemporaryStore()
        let store = t.store
        let onMainActor = Received<Bool>()
        for i in 0..<200 {
            let commit = try await store.write { txn in
                onMainActor.add(DispatchQueue.getSpecific(key: mainQueue) == true)
                try txn.insert(["i": .int(Int64(i))], as: ref("item/\(i)"))
                return txn.commitID
            }
            MainActor.assertIsolated()
            let count = try await store.read { txn in
                onMainActor.add(DispatchQueue.getSpecific(key: mainQueue) == true)
                return try txn.count(ofKind: "item")
            }
            MainActor.assertIsolated()
            #expect(commit != nil && count == i + 1)
        }
        #expect(onMainActor.count == 400)
        #expect(!onMainActor.all.contains(true))
    }

    /// A write's error comes back to the caller, and nothing of it commits.
    @Test func aThrowingWriteCommitsNothing() async throws {
        struct Refused: Error {}
        let t = try TemporaryStore()
        let store = t.store
        await #expect(throws: Refused.self) {
            try await store.write { txn in
                try txn.insert([:], as: ref("item/a"))
                throw Refused()
            }
        }
        #expect(try await store.read { try $0.count(ofKind: "item") } == 0)
    }

    /// A task cancelled before it calls does not run its closure.
    @Test func anAlreadyCancelledTaskRunsNothing() async throws {
        let t = try TemporaryStore()
        let store = t.store
        let ran = Flag()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.read { _ in ran.set() }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!ran.isSet)
    }

    /// A write waiting for its turn behind another write, then cancelled: the caller gets
    /// `CancellationError` at once, and the closure never runs when the turn comes.
    @Test func aWriteCancelledBeforeItsTurnDoesNotRun() async throws {
        let t = try TemporaryStore()
        let store = t.store
        let ran = Flag()
        let release = try store.holdWrites()
        let task = Task {
            try await store.write { txn in
                ran.set()
                try txn.insert([:], as: ref("item/late"))
            }
        }
        await eventually { store.environment.commitQueue.queued == 1 }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        release()
        try await store.write { _ in }  // takes its turn after the cancelled write's
        #expect(!ran.isSet)
        #expect(try store.record(ref("item/late")) == nil)
    }

    /// Async writes waiting behind a write commit in groups, each with its own commit: the store's
    /// commit thread takes those queued when it starts and waits for its turn with them; the others
    /// queue in the pipeline meanwhile and make the next group (four writes, at most two groups).
    @Test func asyncWritesWaitingTogetherCommitAsOneGroup() async throws {
        let t = try TemporaryStore(options: Store.Options())  // full durability: groups share syncs
        let store = t.store
        let release = try store.holdWrites()
        let tasks = (0..<4).map { i in
            Task { try await store.write { txn in
                try txn.insert(["i": .int(Int64(i))], as: ref("item/\(i)"))
                return txn.commitID
            } }
        }
        await eventually { store.environment.commitQueue.queued + store.threads.commits.queuedCount == 4 }
        release()
        var commits: [UInt64] = []
        for task in tasks { commits.append(try #require(try await task.value)) }
        #expect(Set(commits).count == 4)
        #expect(store.environment.commitQueue.statistics.largestGroup >= 2)
        #expect(try store.count(ofKind: "item") == 4)
    }
}

/// Waits until `condition` holds, suspending between checks (the deadline only keeps a broken
/// test from hanging: it then fails on what should have happened).
func eventually(_ condition: () -> Bool) async {
    // Generous: in the full suite, blocking tests can hold the two cooperative threads for over a
    // minute, and the tasks a condition waits for do not run meanwhile.
    let deadline = Date().addingTimeInterval(600)
    while !condition(), Date() < deadline { try? await Task.sleep(for: .milliseconds(2)) }
}

extension Store {
    /// Starts a write on a thread of its own that holds the write queue until the returned
    /// closure is called (which then waits for that write to end).
    func holdWrites() throws -> @Sendable () -> Void {
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        Thread {
            try? self.write { _ in
                holding.signal()
                release.wait()
            }
            ended.signal()
        }.start()
        holding.wait()
        return {
            release.signal()
            ended.wait()
        }
    }
}
