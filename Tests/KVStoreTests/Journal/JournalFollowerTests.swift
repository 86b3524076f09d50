import Foundation
import Testing
import TestSupport
@testable import KVStore

/// Following the journal: a blocking ``JournalFollower`` and the ``JournalUpdates`` async sequence.
/// (Commits by another process: see the CLI tests, which spawn the tool.)
@Suite struct JournalFollowerTests {
    let t: TemporaryStore
    let ada = ref("person/ada")

    init() throws {
        t = try TemporaryStore()
        try t.store.insert(["name": "Ada"], as: ada)
    }

    /// Runs `follower` on its own thread, collecting the sequences it delivers.
    private final class Run: @unchecked Sendable {
        let lock = NSLock()
        var sequences: [UInt64] = []
        var batches = 0
        var error: (any Error)?
        let done = DispatchSemaphore(value: 0)

        init(_ follower: JournalFollower, body: @escaping @Sendable ([JournalEntry]) throws -> Void = { _ in }) {
            Thread {
                do {
                    try follower.run { batch in
                        self.lock.withLock { self.sequences += batch.map(\.sequence); self.batches += 1 }
                        try body(batch)
                    }
                } catch {
                    self.lock.withLock { self.error = error }
                }
                self.done.signal()
            }.start()
        }

        var seen: [UInt64] { lock.withLock { sequences } }

        /// Waits until `count` sequences arrived (or a minute passed, which fails the test's expectations).
        func wait(for count: Int) {
            waitUntil { seen.count >= count }
        }

        func finished() -> Bool { done.wait(timeout: .now() + 60) == .success }
    }

    @Test func aFollowerDeliversPendingThenNewEntriesInOrderUntilStopped() throws {
        let follower = JournalFollower(store: t.store, after: 0)
        let run = Run(follower)
        run.wait(for: 1)
        for age in 1...20 { try t.store.setValue(.int(Int64(age)), forKey: "age", of: ada) }
        try t.store.write { txn in
            try txn.setValue("A", forKey: "a", of: ada)
            try txn.setValue("B", forKey: "b", of: ada)
        }
        run.wait(for: 23)
        follower.stop()
        #expect(run.finished())
        #expect(run.seen == Array(1...23))
        #expect(run.error == nil)
        #expect(follower.isStopped)
    }

    @Test func aFollowerStartsAfterItsCursorAndBatchesUpToTheLimit() throws {
        for age in 1...9 { try t.store.setValue(.int(Int64(age)), forKey: "age", of: ada) }
        var options = JournalFollowOptions()
        options.batchLimit = 4
        let follower = JournalFollower(store: t.store, after: 2, options: options)
        let run = Run(follower)
        run.wait(for: 8)
        follower.stop()
        #expect(run.finished())
        #expect(run.seen == Array(3...10))
        #expect(run.batches == 2)
    }

    @Test func aConsumersFollowerCommitsTheCursorAfterEachBatch() throws {
        let consumer = try t.store.registerConsumer(named: "indexer", startingAfter: 0)
        let follower = JournalFollower(consumer: consumer)
        let run = Run(follower)
        run.wait(for: 1)
        try t.store.setValue(1, forKey: "age", of: ada)
        run.wait(for: 2)
        follower.stop()
        #expect(run.finished())
        #expect(run.seen == [1, 2])
        #expect(try consumer.cursor() == 2)
        // A new follower of the same consumer resumes after the cursor.
        try t.store.setValue(2, forKey: "age", of: ada)
        let nextFollower = JournalFollower(consumer: consumer)
        let next = Run(nextFollower)
        next.wait(for: 1)
        nextFollower.stop()
        #expect(next.finished())
        #expect(next.seen == [3])
    }

    @Test func aBatchWhoseBodyThrowsEndsTheRunAndIsNotCommitted() throws {
        struct Refused: Error {}
        let consumer = try t.store.registerConsumer(named: "indexer", startingAfter: 0)
        let run = Run(JournalFollower(consumer: consumer)) { _ in throw Refused() }
        #expect(run.finished())
        #expect(run.error is Refused)
        #expect(try consumer.cursor() == 0, "the batch will be delivered again")
    }

    @Test func aFollowerLeftBehindByTruncationGetsCursorExpired() throws {
        for age in 1...5 { try t.store.setValue(.int(Int64(age)), forKey: "age", of: ada) }
        try t.store.truncateJournal(before: 4)
        let run = Run(JournalFollower(store: t.store, after: 1))
        #expect(run.finished())
        #expect((run.error as? JournalRetentionError)?.code == .cursorExpired)
        #expect(run.seen.isEmpty)
    }

    /// As the initializer's doc says: 0 is not "whatever is left" once the journal was truncated;
    /// the oldest covered cursor is.
    @Test func followingFromZeroAfterTruncationFailsAndTheOldestCoveredCursorFollowsWhatIsLeft() throws {
        for age in 1...5 { try t.store.setValue(.int(Int64(age)), forKey: "age", of: ada) }
        try t.store.truncateJournal(before: 4)
        let fromZero = Run(JournalFollower(store: t.store, after: 0))
        #expect(fromZero.finished())
        #expect((fromZero.error as? JournalRetentionError)?.code == .cursorExpired)

        let follower = JournalFollower(store: t.store, after: try t.store.read { try $0.oldestCoveredCursor() })
        let rest = Run(follower)
        rest.wait(for: 3)
        follower.stop()
        #expect(rest.finished())
        #expect(rest.seen == [4, 5, 6])
    }

    @Test func thePollOpensNoTransactionUntilSomethingCommits() throws {
        var tail = JournalTail(store: t.store, position: 0, batchLimit: 10, consumer: nil)
        #expect(try tail.poll()?.map(\.sequence) == [1])
        #expect(try tail.poll() == nil, "nothing committed: no read")
        try t.store.registerConsumer(named: "x")
        #expect(try tail.poll() == [], "a commit that journaled nothing: a read that finds nothing")
        #expect(try tail.poll() == nil)
        try t.store.setValue(1, forKey: "age", of: ada)
        #expect(try tail.poll()?.map(\.sequence) == [2])
        #expect(tail.position == 2)
    }

    @Test func thePollIntervalDoublesWhileIdleAndResetsAfterEntries() {
        var backoff = PollBackoff(.milliseconds(1) ... .milliseconds(5))
        #expect((0..<5).map { _ in backoff.next() } == [1, 2, 4, 5, 5].map { .milliseconds($0) })
        backoff.reset()
        #expect(backoff.next() == .milliseconds(1))
        var zero = PollBackoff(.zero ... .zero)
        #expect(zero.next() == .microseconds(100) && zero.next() == .microseconds(100), "never a busy loop")
    }

    @Test func aFullBatchIsFollowedByAnotherReadWithoutWaitingForACommit() throws {
        for age in 1...4 { try t.store.setValue(.int(Int64(age)), forKey: "age", of: ada) }
        var tail = JournalTail(store: t.store, position: 0, batchLimit: 2, consumer: nil)
        #expect(try tail.poll()?.map(\.sequence) == [1, 2])
        #expect(try tail.poll()?.map(\.sequence) == [3, 4])
        #expect(try tail.poll()?.map(\.sequence) == [5])
        #expect(try tail.poll() == nil)
    }

    @Test func updatesDeliverEntriesAsTheyCommitAndEndWhenCancelled() async throws {
        let store = t.store
        let ada = ada
        let seen = Failures()  // a thread-safe list of strings
        let task = Task {
            for try await entry in store.journalUpdates(after: 0) {
                seen.add(String(entry.sequence))
                if entry.sequence < 4 { try store.setValue(.int(Int64(entry.sequence)), forKey: "age", of: ada) }
            }
            return "ended"
        }
        while seen.all.count < 4 { try await Task.sleep(for: .milliseconds(2)) }  // (async: no blocking wait)
        task.cancel()
        #expect(try await task.value == "ended")
        #expect(seen.all == ["1", "2", "3", "4"])
    }

    /// Cancelling ends the sequence at the next request, not after the rest of the batch already
    /// read; a consumer's cursor is committed through the entries handed out (the loop body ran
    /// for each of them before it asked for the next).
    @Test func cancellingEndsUpdatesMidBatchAndCommitsWhatWasHandedOut() async throws {
        for age in 1...5 { try t.store.setValue(.int(Int64(age)), forKey: "age", of: ada) }
        let consumer = try t.store.registerConsumer(named: "indexer", startingAfter: 0)
        let task = Task {
            var seen: [UInt64] = []
            for try await entry in consumer.updates() {
                seen.append(entry.sequence)
                if seen.count == 2 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return seen
        }
        #expect(try await task.value == [1, 2])
        #expect(try consumer.cursor() == 2)
    }

    @Test func aConsumersUpdatesCommitTheCursorThroughWhatWasProcessed() async throws {
        for age in 1...3 { try t.store.setValue(.int(Int64(age)), forKey: "age", of: ada) }
        let consumer = try t.store.registerConsumer(named: "indexer", startingAfter: 1)
        var iterator = consumer.updates().makeAsyncIterator()
        #expect(try await iterator.next()?.sequence == 2)
        #expect(try await iterator.next()?.sequence == 3)
        #expect(try await iterator.next()?.sequence == 4)
        #expect(try consumer.cursor() == 1, "nothing is committed while the batch is handed out")
        try t.store.setValue(9, forKey: "age", of: ada)
        #expect(try await iterator.next()?.sequence == 5)
        #expect(try consumer.cursor() == 4, "asking past a batch commits it")
    }
}
