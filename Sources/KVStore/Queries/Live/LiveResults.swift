/// The results of a query as an `AsyncSequence` (``Store/liveResults(of:options:)``): the current
/// results, then one ``LiveQueryChange`` for each batch of commits that changes them — from other
/// tasks, threads and processes — until the task iterating it is cancelled, which ends the
/// sequence.
///
/// ```swift
/// let task = Task {
///     for try await change in store.liveResults(of: RecordQuery(kind: "item", limit: 50)) {
///         print(change.commit, change.ids)
///     }
/// }
/// // … later
/// task.cancel()
/// ```
///
/// It polls the journal as ``JournalUpdates`` does, sleeping with `Task.sleep` between polls, and
/// applies each batch of entries as ``Store/observe(_:options:onError:_:)`` does; commits made
/// while the consumer is busy are coalesced into the next change set.
public struct LiveResults: AsyncSequence, Sendable {
    /// Each element is the results now, with how they changed.
    public typealias Element = LiveQueryChange

    let store: Store
    let query: RecordQuery
    let options: JournalFollowOptions

    /// An iterator that reads the current results when first asked.
    public func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self)
    }

    /// Iterates a ``LiveResults``.
    public struct Iterator: AsyncIteratorProtocol {
        private let sequence: LiveResults
        private var feed: LiveQueryFeed?
        private var backoff: PollBackoff

        init(sequence: LiveResults) {
            self.sequence = sequence
            backoff = PollBackoff(sequence.options.pollInterval)
        }

        /// The initial results, then the next change set, waiting for one; nil once the task is
        /// cancelled.
        /// - Throws: what ``ReadTransaction/fetch(_:keys:)`` throws for the query (on the first
        ///   call); ``StoreError/Code/filesReplaced`` when the store's files were replaced.
        public mutating func next() async throws -> LiveQueryChange? {
            if Task.isCancelled { return nil }
            guard feed != nil else {
                let (feed, initial) = try LiveQueryFeed.start(sequence.query, in: sequence.store, options: sequence.options)
                self.feed = feed
                return initial
            }
            while !Task.isCancelled {
                if let change = try feed!.poll() {
                    backoff.reset()
                    return change
                }
                do {
                    try await Task.sleep(for: backoff.next())
                } catch {
                    return nil
                }
            }
            return nil
        }
    }
}
