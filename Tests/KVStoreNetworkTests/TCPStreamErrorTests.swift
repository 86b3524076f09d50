import Foundation
import KVStore
import KVStoreNetwork
import Testing
import TestSupport

/// An export that fails once the journal stream began ends the stream with the source's error
/// frame: a following replica truncated past is reseeded; a client that does not follow stops
/// with the server's message. The client is held before it reads the stream (in its first
/// progress call) until the server waits at its high-water mark, so the truncation lands while
/// the server is inside the stream.
@Suite(.tags(.network), .skippedByTag) struct TCPStreamErrorTests {
    /// A client of `server` run on a thread of its own, held in its first progress call until
    /// ``release()``.
    final class HeldClient: Sendable {
        private let held = DispatchSemaphore(value: 0)
        private let finished = DispatchSemaphore(value: 0)
        private let outcome = LockedOutcome()
        let latest = LockedStatus()
        let client: JournalClient

        init(_ client: JournalClient) {
            self.client = client
            Thread { [self] in
                let first = LockedOutcome()
                do {
                    let status = try client.run { status in
                        if first.take() { self.held.wait() }
                        self.latest.set(status)
                    }
                    latest.set(status)
                } catch {
                    outcome.set(error)
                }
                finished.signal()
            }.start()
        }

        func release() { held.signal() }

        /// Waits for `run` to return. - Returns: what it threw, if anything.
        func finish() -> (any Error)? {
            finished.wait()
            return outcome.error
        }
    }

    /// A server whose window is small, so that a client that reads nothing holds it back at once.
    private func narrowServer(_ source: Store) throws -> JournalServer {
        try startedServer(source) {
            $0.highWaterMark = 32 << 10
            $0.socketSendBuffer = 4096
        }
    }

    @Test func aFollowingReplicaTruncatedPastWhileItFollowsIsReseeded() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitBlobs(300, of: 4096, into: source)   // entries 1…300, one commit of 1.2 MB
        let server = try narrowServer(source)
        defer { server.stop() }
        let replica = HeldClient(client(of: server, into: directory.path("replica"), follow: true))

        // The server's follower is inside its first batch (1…300), waiting for the replica.
        #expect(waitUntil(timeout: 20) { (server.connectionStatistics.first?.waits ?? 0) > 0 })
        try commitItems(3, into: source)                            // 301…303
        _ = try source.truncateJournal(before: 303, force: true)    // past the follower's 300
        replica.release()

        #expect(waitUntil(timeout: 20) { (replica.latest.value?.appliedSequence ?? 0) >= 303 })
        try commitItems(2, startingAt: 3, into: source)           // 304…305, streamed after the reseed
        #expect(waitUntil(timeout: 20) { (replica.latest.value?.appliedSequence ?? 0) >= 305 })
        #expect(replica.latest.value?.reseeds == 1)
        replica.client.stop()
        #expect(replica.finish() == nil)
        #expect(try sameRecords(source, Store(path: directory.path("replica"))))
    }

    @Test func aClientThatDoesNotFollowStopsWithTheServersMessageAndAppliesNoCutCommit() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.store("source")
        try commitBlobs(5000, of: 300, into: source)   // one commit of 5,000 entries: export reads 4,096 at a time
        let server = try narrowServer(source)
        defer { server.stop() }
        let replica = HeldClient(client(of: server, into: directory.path("replica")))

        // The export is inside its first read (1…4096), waiting for the replica.
        #expect(waitUntil(timeout: 20) { (server.connectionStatistics.first?.waits ?? 0) > 0 })
        _ = try source.truncateJournal(before: 4500, force: true)
        replica.release()

        let error = try #require(replica.finish() as? JournalStreamError)
        #expect(error.code == .sourceFailed)
        #expect(error.description == "journal stream: the source stopped the stream: entry 4500 cannot follow entry 4096: the journal read has a gap or is out of order")
        #expect(try checkpoint(of: Store(path: directory.path("replica")), for: source) == 0)
    }
}

/// The first call (``take()``), or an error, handed between threads.
final class LockedOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var taken = false
    private var failure: (any Error)?

    /// True the first time only.
    func take() -> Bool { lock.withLock { defer { taken = true }; return !taken } }
    func set(_ error: any Error) { lock.withLock { failure = error } }
    var error: (any Error)? { lock.withLock { failure } }
}
