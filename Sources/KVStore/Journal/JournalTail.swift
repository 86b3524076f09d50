import LMDB

/// Where a follower is in the journal, and how it notices new commits: by polling LMDB's last
/// transaction id (no transaction, no lock), and opening a short read transaction only when it
/// changed. Shared by ``JournalFollower`` and ``JournalUpdates``.
struct JournalTail {
    let store: Store
    /// The last sequence delivered (the follower's cursor).
    private(set) var position: UInt64
    let batchLimit: Int
    /// The consumer being followed, for error messages.
    let consumer: String?
    /// The LMDB transaction whose snapshot was last read completely; -1 before the first read.
    private var seenTransaction = -1
    /// The store's last sequence in the snapshot last read (0 before the first read).
    private(set) var lastSequence: UInt64 = 0

    init(store: Store, position: UInt64, batchLimit: Int, consumer: String?) {
        self.store = store
        self.position = position
        self.batchLimit = max(1, batchLimit)
        self.consumer = consumer
    }

    /// The entries committed since the last call, at most `batchLimit` (possibly none, when a
    /// commit journaled nothing); nil, without opening a transaction, when nothing committed.
    ///
    /// The transaction id seen is the read's own snapshot, not the polled one: LMDB publishes a new
    /// snapshot to readers a moment after the id appears, and a read in between must not hide the commit.
    /// - Throws: ``JournalRetentionError/Code/cursorExpired`` when the journal was truncated past
    ///   the position; ``StoreError/Code/filesReplaced`` when the store's files were replaced.
    mutating func poll() throws -> [JournalEntry]? {
        try poll { [consumer] txn, cursor, limit in
            let entries = try txn.journalEntries(after: cursor, limit: limit, consumer: consumer)
            return (entries, entries.count, entries.last?.sequence)
        }
    }

    /// ``poll()`` with the entries read by `read`, given the read transaction, the position and
    /// the batch limit: what it read, how many entries that is (the limit reached means more may
    /// be waiting), and the last one's sequence.
    mutating func poll<Batch>(
        _ read: (ReadTransaction, _ cursor: UInt64, _ limit: Int) throws -> (batch: Batch, count: Int, last: UInt64?)
    ) throws -> Batch? {
        // With its files replaced, the store would poll the old ones and never see a commit again.
        try store.checkFilesUnchanged()
        if store.environment.lastTransactionID == seenTransaction { return nil }
        let (batch, snapshot, last) = try store.read { [position, batchLimit] txn in
            (try read(txn, position, batchLimit), txn.transaction.id, try txn.lastSequence())
        }
        lastSequence = last
        if batch.count < batchLimit { seenTransaction = snapshot }
        if let last = batch.last { position = last }
        return batch.batch
    }
}

/// How long a follower sleeps between polls: the shortest interval after new entries, doubling
/// while nothing happens, up to the longest.
struct PollBackoff {
    let range: ClosedRange<Duration>
    private(set) var current: Duration

    /// The shortest interval allowed: a lower bound of zero would never sleep.
    static let shortest = Duration.microseconds(100)

    /// The longest interval of a follower woken by commits (``CommitWatcher``): a safety net only.
    static let watchedLongest = Duration.seconds(1)

    /// The back-off over `range`; when `watched` (commits wake the follower), up to
    /// ``watchedLongest`` at least.
    init(_ range: ClosedRange<Duration>, watched: Bool = false) {
        let upper = watched ? max(range.upperBound, Self.watchedLongest) : range.upperBound
        self.range = max(range.lowerBound, Self.shortest) ... max(upper, Self.shortest)
        current = self.range.lowerBound
    }

    /// Something happened: poll again soon.
    mutating func reset() { current = range.lowerBound }

    /// The interval to sleep now; the next one is twice as long (within the range).
    mutating func next() -> Duration {
        defer { current = min(current * 2, range.upperBound) }
        return current
    }
}

/// How a follower polls and reads: see ``JournalFollower`` and ``JournalUpdates``.
public struct JournalFollowOptions: Sendable {
    /// The most entries read in one read transaction and delivered as one batch (default 1,000;
    /// at least 1).
    public var batchLimit: Int = 1_000
    /// The pause between two polls while nothing commits: the lower bound after new entries,
    /// doubling up to the upper bound while idle (default 1…5 ms). A commit is seen within about the
    /// upper bound; each idle poll costs one `mdb_env_info` call and no transaction. Intervals
    /// shorter than 0.1 ms count as 0.1 ms. A ``JournalFollower`` that can watch the store's file
    /// (Linux) is woken by each commit instead, and doubles its pause up to one second at least.
    public var pollInterval: ClosedRange<Duration> = .milliseconds(1) ... .milliseconds(5)

    /// The defaults: batches of 1,000 entries, polls every 1 to 5 ms.
    public init() {}
}
