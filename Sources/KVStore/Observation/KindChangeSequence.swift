import LMDB

extension Store {
    /// The changes to the records of `kind` as an `AsyncSequence` of ``KindChanges``: the commits
    /// made after the iteration started, in this process or in others, in commit order.
    ///
    /// ```swift
    /// for try await changes in store.kindChanges("item", carrying: ["feed"]) {
    ///     for id in changes.inserted { unread[changes.values[id]?["feed"]?.stringValue ?? "", default: 0] += 1 }
    /// }
    /// ```
    /// The sequence reads the journal from where it started, in a read transaction on one of the
    /// store's reader threads, whenever a commit may have added entries: it is woken at once by a
    /// commit of the kind in this process (an observer like ``observeKind(_:_:)``'s) and by the
    /// store's file changing for another process's commit (see ``JournalFollower``), and does not
    /// poll while idle but for a safety check about once a second.
    ///
    /// **Buffering.** Nothing is buffered in memory: the changes wait in the journal. Each element
    /// is the net effect (as ``KindChanges`` folds one commit) of every commit not yet delivered
    /// when the consumer asks for the next one, at most `options.batchLimit` journal entries: a
    /// consumer that keeps up gets one element per commit; a slow one gets fewer, coalesced
    /// elements, whose ``KindChanges/commitID`` is the last commit they include.
    ///
    /// **Carried keys.** The values of `keyPaths` for each record changed come in
    /// ``KindChanges/values``, so a consumer need not read the record again. They are read in the
    /// same read transaction as the element's journal entries — for this process's commits and
    /// other processes' alike — so they are the values after the element's last commit (or a later
    /// commit's, when a batch stopped at the limit); a deleted record's come from the journal's old
    /// values (its values before the deletion).
    ///
    /// Cancelling the task ends the sequence with nil and removes its observer and its file watch
    /// before the loop ends; leaving the loop removes them when the iterator is released, which
    /// may be a moment after the loop (a store thread may still hold it).
    /// - Throws (from the iteration): ``RecordRefError`` for an invalid kind name;
    ///   ``JournalRetentionError/Code/cursorExpired`` when the journal was truncated past the
    ///   changes not yet delivered; ``StoreError/Code/filesReplaced``.
    public func kindChanges(
        _ kind: String, carrying keyPaths: [String] = [], options: JournalFollowOptions = JournalFollowOptions()
    ) -> KindChangeSequence {
        KindChangeSequence(store: self, kind: kind, keyPaths: keyPaths, options: options)
    }
}

/// The changes to one kind's records, commit after commit: see ``Store/kindChanges(_:carrying:options:)``.
public struct KindChangeSequence: AsyncSequence, Sendable {
    public typealias Element = KindChanges
    public typealias Failure = any Error

    let store: Store
    let kind: String
    let keyPaths: [String]
    let options: JournalFollowOptions

    public func makeAsyncIterator() -> Iterator { Iterator(sequence: self) }

    /// Iterates over the changes; starts following when first asked for an element.
    public struct Iterator: AsyncIteratorProtocol {
        let sequence: KindChangeSequence
        private var feed: KindChangeFeed?
        private var ended = false

        init(sequence: KindChangeSequence) { self.sequence = sequence }

        /// The next commits' changes; nil once the task is cancelled.
        public mutating func next() async throws -> KindChanges? {
            guard !ended else { return nil }
            do {
                if feed == nil { feed = try await KindChangeFeed.start(sequence) }
                if let changes = try await feed!.next() { return changes }
            } catch is CancellationError {
                // Cancelled while starting: the sequence ends, as it does once it has started.
            } catch {
                end()
                throw error
            }
            end()
            return nil
        }

        private mutating func end() {
            ended = true
            feed?.close()
            feed = nil
        }
    }
}
