import Foundation
import Testing
import KVStore
import TestSupport

/// `Store.exportJournal(since:following:onStart:to:)`: an open-ended stream never ends inside a commit.
@Suite struct JournalExportFollowingTests {
    @Test func stoppingInsideACommitStillEndsTheStreamAfterThatWholeCommit() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let big = Value.string(String(repeating: "x", count: 40_000))
        try store.write { txn in
            for i in 0..<10 { try txn.insert(["payload": big], as: ref("blob/\(i)")) }   // one commit, 10 entries
        }
        try store.write { txn in try txn.insert(["n": 1], as: ref("small/1")) }

        var options = JournalFollowOptions()
        options.batchLimit = 3   // the first batch stops inside the 10-entry commit
        var follower: JournalFollower?
        var bytes: [UInt8] = []
        try store.exportJournal(since: 1, following: options, onStart: { follower = $0 }) { chunk in
            bytes += chunk
            follower?.stop()   // the first flush comes while the first batch is written
        }

        let reader = try JournalStreamReader(bytes: bytes)
        #expect(reader.header.lastSequence == nil)
        var commits: [[JournalEntry]] = []
        while let commit = try reader.nextCommit() { commits.append(commit) }
        #expect(commits.map(\.count) == [10], "the stream holds the whole first commit and ends cleanly")
        #expect(commits.first?.map(\.sequence) == Array(1...10))
    }

    /// Bytes an export sends, collected from its thread.
    private final class Sent: @unchecked Sendable {
        let lock = NSLock()
        var bytes: [UInt8] = []
        var follower: JournalFollower?
        let done = DispatchSemaphore(value: 0)

        /// The whole commits the bytes sent so far hold.
        var commits: [[JournalEntry]] {
            let bytes = lock.withLock { self.bytes }
            guard let reader = try? JournalStreamReader(bytes: bytes) else { return [] }
            var commits: [[JournalEntry]] = []
            while let commit = try? reader.nextCommit() { commits.append(commit) }
            return commits
        }
    }

    @Test func aCommitThatFillsABatchExactlyIsSentWithoutWaitingForTheNextCommit() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try store.write { txn in
            for i in 0..<3 { try txn.insert(["n": .int(Int64(i))], as: ref("n/\(i)")) }   // one commit, 3 entries
        }
        var options = JournalFollowOptions()
        options.batchLimit = 3   // the commit fills the first batch exactly
        let batched = options
        let sent = Sent()
        Thread {
            try? store.exportJournal(since: 1, following: batched, onStart: { follower in
                sent.lock.withLock { sent.follower = follower }
            }) { chunk in sent.lock.withLock { sent.bytes += chunk } }
            sent.done.signal()
        }.start()
        let arrived = waitUntil(timeout: 20) { sent.commits.count == 1 }
        sent.lock.withLock { sent.follower }?.stop()
        #expect(sent.done.wait(timeout: .now() + 60) == .success)
        #expect(arrived, "the whole commit is sent while the export keeps following")
        #expect(sent.commits.map(\.count) == [3])
    }

    @Test func anOpenEndedStreamStartsAtTheJournalsFirstEntryAfterTruncation() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        for i in 0..<5 { try store.write { txn in try txn.insert(["n": .int(Int64(i))], as: ref("n/\(i)")) } }
        try store.truncateJournal(before: 4)
        var bytes: [UInt8] = []
        try store.exportJournal(since: 1, following: JournalFollowOptions(), onStart: { $0.stop() }) { bytes += $0 }
        let reader = try JournalStreamReader(bytes: bytes)
        #expect(reader.header.firstSequence == 4)
        #expect(try reader.nextCommit() == nil)
    }
}
