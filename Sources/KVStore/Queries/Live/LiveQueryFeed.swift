/// A live query's state and its place in the journal: ``poll()`` reads the entries committed
/// since the last poll and applies them in that same read transaction, so each change set is
/// consistent with the entries it covers. Shared by ``Store/observe(_:options:onError:_:)`` and
/// ``LiveResults``.
struct LiveQueryFeed {
    private let state: LiveQueryState
    private var tail: JournalTail
    private let batchLimit: Int

    /// The feed of `query` and its initial results, read in one transaction.
    /// - Throws: what ``ReadTransaction/fetch(_:keys:)`` throws for the query.
    static func start(_ query: RecordQuery, in store: Store, options: JournalFollowOptions) throws -> (Self, LiveQueryChange) {
        try store.read { txn in
            let state = try LiveQueryState(query, in: txn)
            let feed = LiveQueryFeed(state: state, store: store, position: try txn.lastSequence(), batchLimit: options.batchLimit)
            let initial = LiveQueryChange(
                commit: try txn.lastCommitID(), isInitial: true, records: state.page, previous: [],
                difference: ResultsDifference(from: [String](), to: [], changed: []))
            return (feed, initial)
        }
    }

    private init(state: LiveQueryState, store: Store, position: UInt64, batchLimit: Int) {
        self.state = state
        self.batchLimit = batchLimit
        tail = JournalTail(store: store, position: position, batchLimit: batchLimit, consumer: nil)
    }

    /// The change set of the commits since the last poll (at most one batch of entries); nil when
    /// nothing committed or the results did not change. When the journal was truncated past the
    /// feed's position, the results are evaluated again from scratch and compared with the last.
    /// - Throws: ``StoreError/Code/filesReplaced`` when the store's files were replaced; read errors.
    mutating func poll() throws -> LiveQueryChange? {
        let state = self.state
        do {
            let change = try tail.poll { txn, cursor, limit in
                let entries = try txn.journalEntries(after: cursor, limit: limit, consumer: nil)
                let change = try state.apply(entries, in: txn).map { previous, difference in
                    LiveQueryChange(
                        commit: entries.last!.commitID, isInitial: false, records: state.page, previous: previous,
                        difference: difference)
                }
                return (change, entries.count, entries.last?.sequence)
            }
            return change ?? nil
        } catch let error as JournalRetentionError where error.code == .cursorExpired {
            return try restart()
        }
    }

    /// Evaluates the query again from scratch and follows the journal from the snapshot read.
    private mutating func restart() throws -> LiveQueryChange? {
        let store = tail.store
        let (change, position) = try store.read { txn in
            let previous = state.pageIDs
            let difference = try state.evaluateAll(in: txn)
            let change = difference.isEmpty ? nil : LiveQueryChange(
                commit: try txn.lastCommitID(), isInitial: false, records: state.page, previous: previous,
                difference: difference)
            return (change, try txn.lastSequence())
        }
        tail = JournalTail(store: store, position: position, batchLimit: batchLimit, consumer: nil)
        return change
    }
}

extension ReadTransaction {
    /// The id of the store's last commit (0 before the first).
    func lastCommitID() throws -> UInt64 {
        try transaction.uint64(forKey: StoreLayout.MetaKey.lastCommit, in: databases.meta) ?? 0
    }
}
