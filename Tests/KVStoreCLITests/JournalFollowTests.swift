import Foundation
import KVStore
import Testing
import TestSupport

/// `journal list --follow` and `--consumer`: another process's commits, seen in order, once each.
@Suite(.tags(.subprocess), .skippedByTag) struct JournalFollowTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        try dir.commitCounter(0...0, to: store)
    }

    @Test func aSpawnedFollowerSeesEveryCommitOfThisProcessInOrder() throws {
        let follower = try BackgroundCommand(["journal", "list", store, "--follow", "--since", "2"], in: dir)
        let count = 200
        try dir.commitCounter(1...count, to: store)
        let lines = follower.waitForLines(count)
        #expect(follower.stop() == 0, "SIGTERM ends following cleanly")
        let entries = try lines.map { try TypedJSON.dictionary(from: $0) }
        #expect(entries.map { $0["sequence"] } == (2...(count + 1)).map { .int(Int64($0)) })
        #expect(entries.map { $0["new"] } == (1...count).map { .int(Int64($0)) })
        #expect(follower.stderr.isEmpty)
    }

    @Test func theLibrarysFollowerSeesCommitsOfOtherProcesses() throws {
        let opened = try Store(path: store)
        let follower = JournalFollower(store: opened, after: 1)
        let seen = Failures()  // a thread-safe list of strings
        let done = DispatchSemaphore(value: 0)
        Thread {
            try? follower.run { batch in batch.forEach { seen.add("\($0.sequence) \($0.keyPath ?? "-")") } }
            done.signal()
        }.start()
        for key in ["a", "b", "c"] { try dir.succeed("set", store, "counter/c", key, "1") }
        waitUntil { seen.all.count >= 3 }
        follower.stop()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(seen.all == ["2 a", "3 b", "4 c"])
    }

    /// A SIGINT or SIGTERM sent at once, before the follower has set up its handling (held
    /// pending when the parent started it with those signals blocked): it still ends following.
    /// It once was discarded, and the follower ran on until a second signal.
    @Test(arguments: [SIGINT, SIGTERM]) func aSignalSentAtOnceStillEndsFollowing(signal: Int32) throws {
        let follower = try BackgroundCommand(["journal", "list", store, "--follow"], in: dir, readingOutput: false)
        let status = follower.stop(signal: signal)
        #expect(status == 0 || follower.endedBySignal, "the follower ran on after the signal (status \(status))")
    }

    @Test func aConsumerResumesAfterItsCommittedCursor() throws {
        try dir.succeed("journal", "consumers", store, "--register", "indexer", "--after", "1")
        let follower = try BackgroundCommand(["journal", "list", store, "--consumer", "indexer", "--follow"], in: dir)
        try dir.commitCounter(1...3, to: store)
        let lines = follower.waitForLines(3)
        #expect(follower.stop(signal: SIGINT) == 0, "SIGINT ends following cleanly")
        #expect(try lines.map { try TypedJSON.dictionary(from: $0)["sequence"] } == [2, 3, 4])
        let consumers = try dir.succeed("journal", "consumers", store).objects()
        #expect(consumers == [["name": "indexer", "cursor": 4, "lag": 0, "expired": false]])
        try dir.commitCounter(4...5, to: store)
        let rest = try dir.succeed("journal", "list", store, "--consumer", "indexer", "--limit", "1").objects()
        #expect(rest.map { $0["sequence"] } == [5])
        #expect(try dir.succeed("journal", "list", store, "--consumer", "indexer").objects().map { $0["sequence"] } == [6])
        #expect(try dir.succeed("journal", "list", store, "--consumer", "indexer").lines.isEmpty)
    }

    @Test func followWithALimitEndsAfterThatManyEntries() throws {
        let follower = try BackgroundCommand(["journal", "list", store, "--follow", "--limit", "3"], in: dir)
        try dir.commitCounter(1...2, to: store)
        #expect(follower.waitForExit() == 0)
        #expect(try follower.lines.map { try TypedJSON.dictionary(from: $0)["sequence"] } == [1, 2, 3])
    }

    @Test func followEndsWhenItsOutputIsClosed() throws {
        let follower = try BackgroundCommand(["journal", "list", store, "--follow"], in: dir, readingOutput: false)
        #expect(follower.readOnce().hasPrefix(#"{"change":"recordInserted""#))
        follower.closeOutput()
        #expect(follower.waitForExit() == 0)
        #expect(follower.stderr.isEmpty)
    }

    @Test func followPrintsATablePerBatch() throws {
        let follower = try BackgroundCommand(["journal", "list", store, "--follow", "--format", "table", "--limit", "2"], in: dir)
        follower.waitForLines(2)
        try dir.commitCounter(1...1, to: store)
        #expect(follower.waitForExit() == 0)
        let lines = follower.lines
        #expect(lines.count == 4 && lines[0].hasPrefix("SEQ") && lines[2].hasPrefix("SEQ"))
        #expect(lines[1].hasPrefix("1 ") && lines[3].hasPrefix("2 "))
    }
}
