/// One delivery of a live query (``Store/observe(_:options:onError:_:)``,
/// ``Store/liveResults(of:options:)``): the results now, and how they differ from the results of
/// the delivery before, as a table or collection view applies it (UIKit's batch updates,
/// `NSFetchedResultsController`, Realm's collection notifications).
///
/// Positions are in the query's page: the first result (after the offset) is 0. ``deleted``,
/// ``updated`` and the sources of ``moved`` are positions in the previous results; ``inserted``
/// and the targets of ``moved`` are positions in ``records``. Moves are as few as can be; a row
/// that moved is reported as moved only, even when its record also changed.
///
/// The first delivery is the results when the observation started: ``isInitial`` is true and the
/// change lists are empty. Commits that arrive faster than they are delivered are coalesced into
/// one change set, labelled with the last commit it covers (as Realm does).
public struct LiveQueryChange: Sendable, Hashable {
    /// A row that moved: its position in the previous results and in ``LiveQueryChange/records``.
    public struct Move: Sendable, Hashable {
        /// The row's position in the previous results.
        public var from: Int
        /// The row's position in the new results.
        public var to: Int
    }

    /// The last commit the results reflect: the commit id of the last journal entry covered (for
    /// the initial results, the store's last commit; 0 for a store never written).
    public var commit: UInt64
    /// Whether these are the results when the observation started.
    public var isInitial: Bool
    /// The results now: the query's page, in its order, each record decoded.
    public var records: [Record]
    /// Positions, in the previous results, of the rows that left the results, ascending.
    public var deleted: [Int]
    /// Positions, in ``records``, of the rows that entered the results, ascending.
    public var inserted: [Int]
    /// Positions, in the previous results, of rows still there, not moved, whose record changed or
    /// read a record (through a reference in the predicate or a sort key) that changed, ascending.
    public var updated: [Int]
    /// The rows that moved, by their previous position.
    public var moved: [Move]
    /// The ids of the rows that left the results, in the order of ``deleted``.
    public var deletedIDs: [String]
    /// The ids of the rows that entered the results, in the order of ``inserted``.
    public var insertedIDs: [String]
    /// The ids of the rows in ``updated``, in its order.
    public var updatedIDs: [String]

    /// The ids of ``records``, in order.
    public var ids: [String] { records.map(\.ref.id) }

    init(commit: UInt64, isInitial: Bool, records: [Record], previous: [String], difference: ResultsDifference) {
        self.commit = commit
        self.isInitial = isInitial
        self.records = records
        deleted = difference.deleted
        inserted = difference.inserted
        updated = difference.updated
        moved = difference.moved.map { Move(from: $0.from, to: $0.to) }
        deletedIDs = difference.deleted.map { previous[$0] }
        insertedIDs = difference.inserted.map { records[$0].ref.id }
        updatedIDs = difference.updated.map { previous[$0] }
    }
}
