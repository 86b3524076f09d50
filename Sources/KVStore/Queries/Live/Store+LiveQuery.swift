import Foundation
import Synchronization

extension Store {
    /// Observes the results of `query`: `callback` receives the current results, then one change
    /// set for each batch of commits that changes them — inserted, deleted, updated and moved
    /// positions (see ``LiveQueryChange``) — until the returned token is cancelled or released.
    ///
    /// ```swift
    /// let unread = RecordQuery(
    ///     kind: "item", where: try KeyPathPredicate("read == NO"),
    ///     sortedBy: [try KeyPathSort(parsing: "published:desc")], limit: 50)
    /// let token = try store.observe(unread) { change in
    ///     print(change.commit, change.ids, change.inserted, change.deleted, change.moved)
    /// }
    /// // … later
    /// token.cancel()
    /// ```
    ///
    /// Changes are read from the journal, so commits of this process and of other processes (the
    /// `kvstore` tool, another app) are seen alike, within about the longest poll interval of
    /// `options`. Only the records a commit touched are evaluated again: the records of the
    /// query's kind it names, and those whose predicate or sort keys read, through a reference
    /// (`customer.city`), a record it names. Commits that arrive faster than the callback returns
    /// are coalesced into one change set labelled with the last commit. When the journal was
    /// truncated past the observation's position, the results are computed again and compared
    /// with the last ones delivered. See <doc:Querying>.
    ///
    /// The callback runs on a thread of the observation's own, one delivery at a time.
    /// - Parameters:
    ///   - query: the records observed; its offset and limit make the page delivered.
    ///   - options: how the journal is polled, and the most entries applied in one change set.
    ///   - onError: called once if the observation fails after it started (the store's files
    ///     replaced, a read error); the observation then ends.
    ///   - callback: called with the initial results, then with each change set.
    /// - Throws: what ``ReadTransaction/fetch(_:keys:)`` throws for `query`, before anything is
    ///   delivered.
    public func observe(
        _ query: RecordQuery, options: JournalFollowOptions = JournalFollowOptions(),
        onError: (@Sendable (any Error) -> Void)? = nil,
        _ callback: @escaping @Sendable (LiveQueryChange) -> Void
    ) throws -> ObservationToken {
        try startObserving(query, options: options, onError: onError, callback).token
    }

    /// ``observe(_:options:onError:_:)``, with the follower whose thread delivers (for tests).
    func startObserving(
        _ query: RecordQuery, options: JournalFollowOptions, onError: (@Sendable (any Error) -> Void)?,
        _ callback: @escaping @Sendable (LiveQueryChange) -> Void
    ) throws -> (token: ObservationToken, follower: LiveQueryFollower) {
        let (feed, initial) = try LiveQueryFeed.start(query, in: self, options: options)
        let follower = LiveQueryFollower(feed: feed, options: options)
        let thread = Thread { follower.run(initial: initial, callback: callback, onError: onError) }
        thread.name = "kvstore live query"
        thread.start()
        return (ObservationToken { follower.stop() }, follower)
    }

    /// The results of `query` as an `AsyncSequence`: the current results first, then one change set
    /// for each batch of commits that changes them, as ``observe(_:options:onError:_:)`` delivers
    /// them, until the task iterating it is cancelled. See ``LiveResults``.
    public func liveResults(of query: RecordQuery, options: JournalFollowOptions = JournalFollowOptions()) -> LiveResults {
        LiveResults(store: self, query: query, options: options)
    }
}

/// The thread of one ``Store/observe(_:options:onError:_:)``: polls the journal, delivers change sets
/// and stops when told.
final class LiveQueryFollower: Sendable {
    /// The feed, used only on the follower's thread once it started.
    private nonisolated(unsafe) var feed: LiveQueryFeed
    private let options: JournalFollowOptions
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    init(feed: LiveQueryFeed, options: JournalFollowOptions) {
        self.feed = feed
        self.options = options
    }

    /// Delivers `initial`, then each change set, until stopped or failing.
    func run(
        initial: LiveQueryChange, callback: @Sendable (LiveQueryChange) -> Void, onError: (@Sendable (any Error) -> Void)?
    ) {
        defer { finished.store(true, ordering: .releasing) }
        if isStopped { return }
        callback(initial)
        var backoff = PollBackoff(options.pollInterval)
        while !isStopped {
            do {
                if let change = try feed.poll() {
                    if isStopped { return }
                    callback(change)
                    backoff.reset()
                    continue
                }
            } catch {
                if !isStopped { onError?(error) }
                return
            }
            Thread.sleep(forTimeInterval: backoff.next().seconds)
        }
    }

    func stop() { stopped.store(true, ordering: .releasing) }

    var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// Whether ``run(initial:callback:onError:)`` returned.
    var isFinished: Bool { finished.load(ordering: .acquiring) }
}
