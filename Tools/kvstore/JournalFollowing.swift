import Dispatch
import KVStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `journal list --follow` and `journal list --consumer NAME`: prints new entries as they commit,
/// one flushed batch at a time, through a ``JournalFollower``; with a consumer, its cursor is
/// committed after each printed batch (at-least-once: a batch printed but not committed is printed
/// again next time).
///
/// ```swift
/// try JournalFollowing(store: store, start: .consumer(consumer), limit: nil, format: .jsonl).run(follow: true)
/// ```
/// Following ends on SIGINT or SIGTERM, when standard output is closed, or after `limit` entries,
/// with status 0.
struct JournalFollowing {
    /// Where the listing starts.
    enum Start {
        /// After this sequence, in memory only.
        case after(UInt64)
        /// After the consumer's stored cursor, committing it as entries are printed.
        case consumer(JournalConsumer)
    }

    let store: Store
    let start: Start
    let limit: Int?
    let format: JournalFormat

    private var consumer: JournalConsumer? {
        if case .consumer(let consumer) = start { consumer } else { nil }
    }

    /// Prints what is there after the start (and, with `follow`, what commits later).
    func run(follow: Bool) throws {
        let output = StandardOutput()
        let cursor: UInt64
        switch start {
        case .after(let sequence): cursor = sequence
        case .consumer(let consumer):
            cursor = try consumer.cursor()
            _ = try consumer.entries(limit: 0)  // a cursor expired by truncation fails here, naming the consumer
        }
        if !follow {
            let entries = try consumer?.entries(limit: limit) ?? store.read { try $0.journalEntries(after: cursor, limit: limit) }
            try write(entries, to: output)
            return
        }
        var remaining = limit ?? .max
        if remaining == 0 { return }
        let follower = JournalFollower(store: store, after: cursor)
        let stopping = Self.stopOnSignalsOrClosedOutput { follower.stop() }
        defer { stopping.forEach { $0.cancel() } }
        try follower.run { batch in
            let printed = batch.prefix(remaining)
            try write(Array(printed), to: output)
            remaining -= printed.count
            if remaining == 0 { follower.stop() }
        }
    }

    /// Writes `entries` as one listing, flushes, then commits the consumer's cursor through them.
    private func write(_ entries: [JournalEntry], to output: StandardOutput) throws {
        var listing = JournalListing(format: format, output: output)
        for entry in entries { listing.append(entry) }
        listing.finish()
        try output.finish()
        if let consumer, let last = entries.last { try consumer.commit(through: last.sequence) }
    }

    /// Calls `stop` on SIGINT or SIGTERM, and when standard output is closed (checked every
    /// 100 ms; SIGPIPE is ignored so that a write to a closed pipe does not kill the process first).
    static func stopOnSignalsOrClosedOutput(_ stop: @escaping @Sendable () -> Void) -> [any DispatchSourceProtocol] {
        signal(SIGPIPE, SIG_IGN)
        var sources = stopOnSignals(stop)
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
        timer.setEventHandler {
            var descriptor = pollfd(fd: 1, events: 0, revents: 0)
            if poll(&descriptor, 1, 0) > 0 && descriptor.revents & Int16(POLLERR | POLLHUP) != 0 { stop() }
        }
        timer.resume()
        sources.append(timer)
        return sources
    }

    /// Calls `stop` on SIGINT or SIGTERM (instead of ending the process). Cancel the returned
    /// sources when done.
    ///
    /// A signal that came before (held pending: the process was started with it blocked, as
    /// Foundation's `Process` starts children) counts too: ignoring the signal, which the
    /// sources need, discards a pending one, so it is looked for first.
    static func stopOnSignals(_ stop: @escaping @Sendable () -> Void) -> [any DispatchSourceProtocol] {
        var pending = sigset_t()
        sigemptyset(&pending)
        sigpending(&pending)
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: stop)
            source.resume()
            return source
        }
        if sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1 { DispatchQueue.global().async(execute: stop) }
        return sources
    }
}
