import Synchronization

/// What one commit did to the records of one kind, for ``Store/observeKind(_:_:)``.
///
/// Each set holds ids (the `id` of `kind/id`) and reports the net effect of the commit: a record
/// inserted and then changed is only `inserted`; one deleted and inserted again is `modified`;
/// one inserted and deleted in the same commit is not reported at all.
///
/// ```swift
/// let token = try store.observeKind("person") { changes in
///     print(changes.inserted.sorted(), changes.modified.sorted(), changes.deleted.sorted())
/// }
/// ```
public struct KindChanges: Sendable, Hashable {
    /// The kind observed.
    public var kind: String
    /// The commit.
    public var commitID: UInt64
    /// Records that did not exist before the commit and exist after it.
    public var inserted: Set<String> = []
    /// Records that existed before the commit and do not after it.
    public var deleted: Set<String> = []
    /// Records that existed before and after the commit, and whose keys it changed.
    public var modified: Set<String> = []
    /// The values of the key paths carried by ``Store/kindChanges(_:carrying:options:)``, by record
    /// id and key path: after the change for inserted and modified records, before it for deleted
    /// ones (from the journal). A key path with no value is left out; empty when none is carried.
    public var values: [String: [String: Value]] = [:]

    /// The changes one commit made to the records of `kind` (ids).
    public init(kind: String, commitID: UInt64, inserted: Set<String> = [], deleted: Set<String> = [], modified: Set<String> = []) {
        self.kind = kind
        self.commitID = commitID
        self.inserted = inserted
        self.deleted = deleted
        self.modified = modified
    }

    /// Folds a commit's entries for this kind, in journal order, into net changes.
    init(kind: String, commitID: UInt64, entries: [JournalEntry]) {
        self.init(kind: kind, commitID: commitID)
        // For each record: whether it existed before the commit (from its first entry), and after.
        var records: [String: (before: Bool, after: Bool)] = [:]
        for entry in entries {
            let existedBefore = records[entry.ref.id]?.before ?? (entry.change != .recordInserted)
            records[entry.ref.id] = (existedBefore, entry.change != .recordDeleted)
        }
        for (id, state) in records {
            switch (state.before, state.after) {
            case (false, true): inserted.insert(id)
            case (true, false): deleted.insert(id)
            case (true, true): modified.insert(id)
            case (false, false): break
            }
        }
    }

    /// Whether the commit changed nothing that is reported.
    var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && modified.isEmpty }
}

/// One observer of a kind (``Store/observeKind(_:_:)``).
final class KindObservation: Sendable {
    let kind: String
    let callback: @Sendable (KindChanges) throws -> Void
    private let cancelled = Atomic<Bool>(false)

    init(kind: String, callback: @escaping @Sendable (KindChanges) throws -> Void) {
        self.kind = kind
        self.callback = callback
    }

    /// Marks it cancelled.
    /// - Returns: whether this call did (false when it already was).
    func markCancelled() -> Bool {
        !cancelled.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Calls the callback unless cancelled; an error it throws is dropped.
    func notify(_ changes: KindChanges) {
        guard !cancelled.load(ordering: .acquiring) else { return }
        do { try callback(changes) } catch {}
    }
}
