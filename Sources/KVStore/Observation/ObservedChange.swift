import Foundation

/// Where an observed change was made: in this store, or applied by replication from another one.
public enum ChangeOrigin: Sendable, Hashable {
    /// Written through this store (in this process).
    case local
    /// Applied by replication; the source store and the entry's sequence there.
    case replicated(JournalOrigin)
}

/// One change of an observed key path, as an observer's callback receives it (KVO's change
/// dictionary, typed).
///
/// When the journal entry names exactly the observed record and key path, the change carries the
/// entry's kind, values and indexes: ``ChangeKind/setting``, or ``ChangeKind/insertion`` /
/// ``ChangeKind/removal`` / ``ChangeKind/replacement`` with ``indexes`` for index-level edits of an
/// array. Any other change that affects the key path — a nested key inside it, a record it goes
/// through, a reference that now points elsewhere, an input of a dependent key, the record's
/// insertion or deletion — is reported once per commit as a ``ChangeKind/setting`` whose old and
/// new values come from evaluating the key path before and after the commit (nothing is reported
/// when they are equal).
///
/// ```swift
/// let token = try store.observe(invoice, keyPath: "customer.name", options: [.old, .new]) { change in
///     print(change.kind, change.oldValue?.stringValue ?? "none", change.newValue?.stringValue ?? "none", change.commitID ?? 0)
/// }
/// ```
public struct ObservedChange: Sendable, Hashable {
    /// The observed record.
    public var ref: RecordRef
    /// The observed key path.
    public var keyPath: String
    /// ``ChangeKind/setting``, ``ChangeKind/insertion``, ``ChangeKind/removal`` or ``ChangeKind/replacement``.
    public var kind: ChangeKind
    /// The value before the change (for index-level changes: the elements removed or replaced);
    /// nil when there was none, or when the observation did not ask for ``ObservationOptions/old``.
    public var oldValue: Value?
    /// The value after the change (for index-level changes: the elements inserted or put in);
    /// nil when there is none, or when the observation did not ask for ``ObservationOptions/new``.
    public var newValue: Value?
    /// For index-level changes, the indexes in the array.
    public var indexes: [Int]?
    /// True for the notification sent before a change is made (``ObservationOptions/prior``).
    ///
    /// A prior callback runs inside the writing transaction, holding the store's write lock: a
    /// write from it fails with ``StoreError/Code/nestedWrite``, and it may run for a transaction
    /// that later throws and commits nothing (as KVO's prior notifications may); when the store
    /// grows its map and runs the transaction again, the notifications already sent are not sent
    /// again. Its ``newValue`` is always nil.
    public var isPrior: Bool
    /// True for the notification of the current value sent by ``ObservationOptions/initial``.
    public var isInitial: Bool
    /// The commit that made the change; nil for initial and prior notifications.
    public var commitID: UInt64?
    /// The journal sequence of the entry that made the change (the first one, when several
    /// entries of a commit made it); nil for initial and prior notifications.
    public var sequence: UInt64?
    /// Whether the change was written here or applied by replication.
    public var origin: ChangeOrigin

    /// A change with these fields; the store makes the ones it delivers (this is for tests and for
    /// callers that feed observers of their own).
    public init(
        ref: RecordRef, keyPath: String, kind: ChangeKind = .setting, oldValue: Value? = nil,
        newValue: Value? = nil, indexes: [Int]? = nil, isPrior: Bool = false, isInitial: Bool = false,
        commitID: UInt64? = nil, sequence: UInt64? = nil, origin: ChangeOrigin = .local
    ) {
        self.ref = ref
        self.keyPath = keyPath
        self.kind = kind
        self.oldValue = oldValue
        self.newValue = newValue
        self.indexes = indexes
        self.isPrior = isPrior
        self.isInitial = isInitial
        self.commitID = commitID
        self.sequence = sequence
        self.origin = origin
    }
}

extension ObservedChange {
    /// The change `entry` makes, for an observer of exactly its record and key path.
    init(exactly entry: JournalEntry) {
        self.init(
            ref: entry.ref, keyPath: entry.keyPath ?? "", kind: entry.change, oldValue: entry.oldValue,
            newValue: entry.newValue, indexes: entry.indexes, commitID: entry.commitID,
            sequence: entry.sequence, origin: ChangeOrigin(entry.origin))
    }
}

extension ChangeOrigin {
    init(_ origin: JournalOrigin?) {
        self = origin.map(ChangeOrigin.replicated) ?? .local
    }
}
