import Foundation
import KVStore
import Testing

/// `journal list --follow` and `--consumer`: another process's commits, seen in order, once each.
@Suite struct JournalFollowTests {
    let dir: TestDirectory
    let store: String

    init() throws {
        dir = try TestDirectory()
        store = dir.path("store")
        try dir.succeed("set", store, "counter/c", "n", "0")
    }

    @Test func aSpawnedFollowerSeesEveryCommitOfThisProcessInOrder() throws {
        let follower = try BackgroundCommand(["journal", "list", store, "--follow", "--since", "2"], in: dir)
        let count = 200
        do {
            let writer = try Store(path: store)
            let ref = try RecordRef("counter/c")
            for n in 1...count { try writer.setValue(.int(Int64(n)), forKey: "n", of: ref) }
        }
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
        let seen = LockedLines()
        let done = DispatchSemaphore(value: 0)
        Thread {
            try? follower.run { batch in seen.append(batch.map { "\($0.sequence) \($0.keyPath ?? "-")" }) }
            done.signal()
        }.start()
        for key in ["a", "b", "c", "d", "e"] { try dir.succeed("set", store, "counter/c", key, "1") }
        seen.wait(for: 5)
        follower.stop()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(seen.all == ["2 a", "3 b", "4 c", "5 d", "6 e"])
    }

    @Test func aConsumerResumesAfterItsCommittedCursor() throws {
        try dir.succeed("journal", "consumers", store, "--register", "indexer", "--after", "1")
        let follower = try BackgroundCommand(["journal", "list", store, "--consumer", "indexer", "--follow"], in: dir)
        for n in 1...3 { try dir.succeed("set", store, "counter/c", "n", String(n)) }
        let lines = follower.waitForLines(3)
        #expect(follower.stop(signal: SIGINT) == 0, "SIGINT ends following cleanly")
        #expect(try lines.map { try TypedJSON.dictionary(from: $0)["sequence"] } == [2, 3, 4])
        let consumers = try dir.succeed("journal", "consumers", store).objects()
        #expect(consumers == [["name": "indexer", "cursor": 4, "lag": 0, "expired": false]])
        for n in 4...5 { try dir.succeed("set", store, "counter/c", "n", String(n)) }
        let rest = try dir.succeed("journal", "list", store, "--consumer", "indexer", "--limit", "1").objects()
        #expect(rest.map { $0["sequence"] } == [5])
        #expect(try dir.succeed("journal", "list", store, "--consumer", "indexer").objects().map { $0["sequence"] } == [6])
        #expect(try dir.succeed("journal", "list", store, "--consumer", "indexer").lines.isEmpty)
    }

    @Test func followWithALimitEndsAfterThatManyEntries() throws {
        let follower = try BackgroundCommand(["journal", "list", store, "--follow", "--limit", "3"], in: dir)
        try dir.succeed("set", store, "counter/c", "n", "1")
        try dir.succeed("set", store, "counter/c", "n", "2")
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
        try dir.succeed("set", store, "counter/c", "n", "1")
        #expect(follower.waitForExit() == 0)
        let lines = follower.lines
        #expect(lines.count == 4 && lines[0].hasPrefix("SEQ") && lines[2].hasPrefix("SEQ"))
        #expect(lines[1].hasPrefix("1 ") && lines[3].hasPrefix("2 "))
    }
}

/// Lines collected from a follower thread.
final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ more: [String]) { lock.withLock { lines += more } }
    var all: [String] { lock.withLock { lines } }

    /// Waits until `count` lines arrived, or a minute passed.
    func wait(for count: Int) {
        let deadline = Date().addingTimeInterval(60)
        while all.count < count && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
    }
}
